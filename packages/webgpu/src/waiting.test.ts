// How the throttled waiter meets dawn.node for real. dawn.node resolves WebGPU promises from a native callback it
// re-queues with setImmediate while any promise is pending; the throttled waiter (node-wait.ts) hands that callback
// to a timer once a wait has lasted spinMs. Checked on a real GPU job by counting dawn's native polls that reach
// the setImmediate underneath: with the direct waiter every poll does, with the throttled one (spinMs 0) none does,
// and they go to timers instead. What this saves (JS-thread CPU while waiting, ~70% of a core down to a few %) is a
// measurement, not a test: `npm run bench -- webgpu` (apps/bench/src/webgpu/wait-cpu.ts).
import type { BoundTensor } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebGpuBackend } from './backend.ts';
import { createThrottledWaiter } from './node-wait.ts';
import { createTestBackend, upload } from './test-support/gpu.ts';
import { randomF32 } from './test-support/random.ts';
import { directWaiter } from './waiter.ts';

const throttled = await createTestBackend({
  waiter: createThrottledWaiter({ spinMs: 0, pollIntervalMs: 1, maxPollIntervalMs: 1 }),
});
const direct = await createTestBackend({ waiter: directWaiter });
afterAll(async () => {
  if (throttled.ok) await throttled.backend.dispose();
  if (direct.ok) await direct.backend.dispose();
});

/** Whether a function is native code (dawn.node's polling callback is). */
function isNative(fn: unknown): boolean {
  return typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));
}

/** Polls seen while one matmul runs: native callbacks that reached setImmediate, and timers set meanwhile. */
async function pollsDuringRun(backend: WebGpuBackend): Promise<{ immediate: number; timers: number }> {
  const n = 128;
  const a: BoundTensor = await upload(backend, 'f32', [n, n], randomF32(n * n, 3));
  const op = { op: 'matmul', a, b: a } as const;
  const spec = [{ dtype: 'f32', shape: [n, n] }] as const;
  for (const out of (await backend.run(op, spec)).outputs) backend.free(out); // pipelines built outside the count
  const realImmediate = globalThis.setImmediate;
  const realTimeout = globalThis.setTimeout;
  const counts = { immediate: 0, timers: 0 };
  const countingImmediate = (...args: Parameters<typeof setImmediate>): ReturnType<typeof setImmediate> => {
    if (isNative(args[0])) counts.immediate++;
    return realImmediate(...args);
  };
  const countingTimeout = (...args: Parameters<typeof setTimeout>): ReturnType<typeof setTimeout> => {
    counts.timers++;
    return realTimeout(...args);
  };
  Object.assign(globalThis, { setImmediate: countingImmediate, setTimeout: countingTimeout });
  try {
    const result = await backend.run(op, spec);
    for (const out of result.outputs) backend.free(out);
  } finally {
    Object.assign(globalThis, { setImmediate: realImmediate, setTimeout: realTimeout });
  }
  backend.free(a.buffer);
  return counts;
}

describe.skipIf(!throttled.ok || !direct.ok)('waiting on a real GPU job', () => {
  it("the direct waiter leaves dawn's polls on setImmediate; the throttled one sends every one to a timer", async () => {
    if (!throttled.ok || !direct.ok) throw new Error('no backend');
    const spinning = await pollsDuringRun(direct.backend);
    expect(spinning.immediate).toBeGreaterThan(0); // dawn polled through setImmediate to resolve the job
    const calm = await pollsDuringRun(throttled.backend);
    expect(calm.immediate).toBe(0);
    expect(calm.timers).toBeGreaterThan(0);
  });
});
