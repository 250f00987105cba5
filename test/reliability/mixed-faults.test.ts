// The quick version of the mixed-faults run (npm run test:stress runs 10,000 ops): 2,000 conformance ops with 5%
// faults injected into the real WASM and WebGPU (SwiftShader) backends.
import { describe, expect, it } from 'vitest';
import { runMixedFaults } from './mixed-faults.ts';

describe('mixed ops with injected faults on real backends', () => {
  it('2,000 ops, 5% faults: every result within tolerance, nothing unhandled, every failure in telemetry with its cause', async () => {
    const report = await runMixedFaults(2000);
    console.log(`faults injected / results wrong / unhandled: ${report.injected} / ${report.wrong + report.rejected} / ${report.unhandled} (backends: ${report.backends.join(', ')})`);
    expect(report.wrongExamples).toEqual([]);
    expect(report.wrong).toBe(0);
    expect(report.rejected).toBe(0);
    expect(report.unhandled).toBe(0);
    expect(report.injected).toBeGreaterThan(2000 * 0.05 * 0.5); // the faults really happened
    expect(report.failedEvents).toBeGreaterThanOrEqual(report.injected);
    expect(report.failedEventsWithCause).toBe(report.failedEvents);
  }, 180_000);
});
