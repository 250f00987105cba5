// What waiting on the GPU costs the JS thread in Node. dawn.node polls with setImmediate while a promise is
// pending; the throttled waiter (node-wait.ts) moves those polls onto a 1 ms timer. Measured here around a
// ~100 ms matmul on SwiftShader: main-thread CPU / wall time for both strategies.
import type { BoundTensor } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebGpuBackend } from './backend.ts';
import { createTestBackend, upload } from './test-support/gpu.ts';
import { randomF32 } from './test-support/random.ts';
import { mainThreadCpuMs } from './test-support/thread-cpu.ts';
import { directWaiter } from './waiter.ts';

const throttled = await createTestBackend();
const naive = await createTestBackend({ waiter: directWaiter });
afterAll(async () => {
  if (throttled.ok) await throttled.backend.dispose();
  if (naive.ok) await naive.backend.dispose();
});

interface WaitCost {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function matmulInputs(backend: WebGpuBackend, n: number): Promise<BoundTensor> {
  return upload(backend, 'f32', [n, n], randomF32(n * n, n));
}

/**
 * Wall and main-thread CPU time of the run with the lowest CPU share among `reps` runs of an n x n matmul (after one
 * warm-up run): the waiter's own cost; other test files sharing the cores can only add to a run's.
 */
async function measure(backend: WebGpuBackend, n: number, reps: number): Promise<WaitCost> {
  const a = await matmulInputs(backend, n);
  const op = { op: 'matmul', a, b: a } as const;
  const spec = [{ dtype: 'f32', shape: [n, n] }] as const;
  backend.free((await backend.run(op, spec)).outputs[0] ?? a.buffer);
  let best: WaitCost = { wallMs: 1, cpuMs: Infinity };
  for (let i = 0; i < reps; i++) {
    const cpu0 = mainThreadCpuMs() ?? 0;
    const t0 = performance.now();
    const result = await backend.run(op, spec);
    const run = { wallMs: performance.now() - t0, cpuMs: (mainThreadCpuMs() ?? 0) - cpu0 };
    if (run.cpuMs / run.wallMs < best.cpuMs / best.wallMs) best = run;
    for (const out of result.outputs) backend.free(out);
  }
  backend.free(a.buffer);
  return best;
}

const canMeasure = throttled.ok && naive.ok && mainThreadCpuMs() !== undefined;

describe.skipIf(!canMeasure)('main-thread CPU while awaiting a ~100 ms GPU job', () => {
  it('stays under 10% of a core with the throttled waiter (dawn.node default spins)', async () => {
    if (!throttled.ok || !naive.ok) return;
    const probe = await measure(throttled.backend, 256, 1);
    const n = Math.max(64, Math.round((256 * Math.cbrt(100 / Math.max(1, probe.wallMs))) / 4) * 4);
    const slow = await measure(throttled.backend, n, 3);
    const spin = await measure(naive.backend, n, 3);
    const share = (c: WaitCost): string => `${c.cpuMs.toFixed(1)} ms CPU / ${c.wallMs.toFixed(1)} ms wall = ${((100 * c.cpuMs) / c.wallMs).toFixed(1)}%`;
    console.info(`[webgpu wait] matmul n=${n}: throttled waiter ${share(slow)}; direct await (dawn.node polling) ${share(spin)}`);
    expect(slow.cpuMs / slow.wallMs).toBeLessThan(0.1);
    expect(spin.cpuMs).toBeGreaterThan(slow.cpuMs);
  });
});
