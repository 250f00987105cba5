// The quick version of the mixed-faults run (npm run test:stress runs 10,000 ops): 2,000 conformance ops with 5%
// faults injected into the real WASM and WebGPU (SwiftShader) backends.
import { describe, expect, it } from 'vitest';
import { OP_KINDS } from '@tandem/core';
import { needBackends } from '../support/backends.ts';
import { runMixedFaults } from './mixed-faults.ts';

describe.skipIf(!needBackends('webgpu', 'wasm'))('mixed ops with injected faults on real backends', () => {
  it('2,000 ops, 5% faults: every result within tolerance, nothing unhandled, every fallback in telemetry with its cause', async () => {
    const report = await runMixedFaults(2000);
    console.log(
      `faults injected / results wrong / unhandled: ${report.injected} / ${report.wrong + report.rejected} / ${report.unhandled} (answered by ${JSON.stringify(report.answeredBy)})`,
    );
    expect(report.answeredBy['webgpu']).toBeGreaterThan(100); // the GPU really ran ops
    expect(report.wrongExamples).toEqual([]);
    expect(report.wrong).toBe(0);
    expect(report.rejected).toBe(0);
    expect(report.unhandled).toBe(0);
    expect(report.opKinds).toEqual([...OP_KINDS].sort()); // every op kind ran
    expect(report.injected).toBeGreaterThan(2000 * 0.05 * 0.5); // the faults really happened
    // Every injected fault is a failed attempt; a device loss also fails the calls made while the backend is down.
    expect(report.droppedEvents).toBe(0);
    expect(report.fallbacks.failed).toBe(report.failedEvents);
    expect(report.failedEvents).toBeGreaterThanOrEqual(report.injected);
    expect(report.fallbacks.unexplained).toEqual([]);
    expect(report.fallbacks.withCause).toBe(report.fallbacks.failed);
    expect(report.fallbacks.explained).toBe(report.fallbacks.failed);
  }, 180_000);
});
