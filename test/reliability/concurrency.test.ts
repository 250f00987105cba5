// 1,000 concurrent calls (mixed conformance ops, and matmuls of tensors all callers share) from 40 async callers
// over the real backends (WebGPU on SwiftShader, WASM, and the reference, which also answers calls addressed to it),
// with 5% faults injected into WebGPU and WASM: every result equals the reference within its case's tolerance, the
// tracker's counts add up (successes = calls, failures = faults injected), and nothing deadlocks (the test's timeout
// is the detector).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byteLengthOf, Engine, numel, opInputs, type Strategy } from '@tandem/core';
import { matmul, ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultRate } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend } from '@tandem/webgpu/node';
import { needBackends } from '../support/backends.ts';
import { auditFallbacks } from './fallback-audit.ts';
import { casesWithReference, checkCase, type ReferenceCase } from './mixed-faults.ts';

/** WebGPU (on SwiftShader) and wasm, which these tests build themselves. */
const ready = needBackends('webgpu', 'wasm');
let unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => void unhandled.push(e);

beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Input bytes of a case (to keep this quick test to the small ones). */
function inputBytes(item: ReferenceCase): number {
  return opInputs(item.op).reduce((sum, { tensor }) => sum + byteLengthOf(tensor.dtype, numel(tensor.shape)), 0);
}

const CALLERS = 40;
const CALLS_EACH = 25;
const STRATEGIES: Strategy[] = ['auto', 'gpu-preferred', 'cpu-preferred', 'auto', { only: 'reference' }];

describe.skipIf(!ready)('concurrent callers over real backends', () => {
  it('40 callers x 25 calls with 5% faults: every result right, tracker counts consistent, no deadlock', async () => {
    const gpu = new FaultInjectingBackend(createNodeWebGpuBackend(), faultRate(0.05, ['throw', 'reject', 'oom'], 3));
    const cpu = new FaultInjectingBackend(
      new WasmBackend({ threads: 1 }),
      faultRate(0.05, ['throw', 'reject', 'oom'], 4),
    );
    const engine = await Engine.create({
      backends: [gpu, cpu, new ReferenceBackend()],
      tracker: { successRateThreshold: 0.5 },
      telemetryCapacity: 4000,
    });
    const cases = casesWithReference().filter((c) => inputBytes(c) <= 64 * 1024);
    // Every fifth call multiplies tensors shared by all callers (concurrent uploads of one tensor share a transfer).
    const n = 8;
    const shared = Array.from({ length: 10 }, (_, s) => {
      const host = Float32Array.from({ length: n * n }, (_, i) => ((i * 7 + s * 13) % 17) - 8);
      return { host, t: engine.tensor(host, [n, n]) };
    });
    const wrong: string[] = [];
    async function sharedMatmul(id: number, j: number, strategy: Strategy): Promise<void> {
      const a = shared[(id + j) % shared.length];
      const b = shared[(id * 3 + j + 1) % shared.length];
      if (a === undefined || b === undefined) throw new Error('no input');
      const [c] = await engine.run({ op: 'matmul', a: a.t, b: b.t }, { strategy: strategy });
      const got = await c?.read();
      c?.dispose();
      const want = matmul(a.host, b.host, n, n, n);
      if (!(got instanceof Float32Array) || got.length !== want.length || got.some((v, i) => v !== want[i]))
        wrong.push(`shared matmul ${id}/${j}`); // small integers: exact
    }
    async function caller(id: number): Promise<void> {
      for (let j = 0; j < CALLS_EACH; j++) {
        if (j % 5 === 4) {
          await sharedMatmul(id, j, STRATEGIES[(id + j) % STRATEGIES.length] ?? 'auto');
          continue;
        }
        const item = cases[(id * 31 + j * 7) % cases.length];
        const strategy = STRATEGIES[(id + j) % STRATEGIES.length];
        if (item === undefined || strategy === undefined) throw new Error('no case');
        const problem = await checkCase(engine, item, strategy);
        if (problem !== undefined) wrong.push(problem);
      }
    }
    try {
      await Promise.all(Array.from({ length: CALLERS }, (_, id) => caller(id)));
      expect(wrong).toEqual([]);
      const calls = CALLERS * CALLS_EACH;
      const injected = gpu.totalInjected + cpu.totalInjected;
      expect(injected).toBeGreaterThan(10);
      const summary = engine.telemetry.summary();
      expect(summary.totalOps).toBe(calls);
      expect(summary.totalFailures).toBe(injected);
      const stats = engine.trackerStats();
      expect(stats.reduce((s, x) => s + x.successes, 0)).toBe(calls);
      expect(stats.reduce((s, x) => s + x.failures, 0)).toBe(injected);
      const answered = new Set(stats.filter((x) => x.successes > 0).map((x) => x.backend));
      expect([...answered].sort()).toEqual(['reference', 'wasm', 'webgpu']);
      const audit = auditFallbacks(engine.telemetry.opEvents());
      expect(audit.unexplained).toEqual([]);
      expect(audit.explained).toBe(injected);
    } finally {
      await engine.dispose();
    }
  }, 60_000);
});
