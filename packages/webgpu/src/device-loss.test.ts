// A real device.destroy() in the middle of a sequence of runs: the runs in flight reject with DeviceLostError
// (no hang, no crash), health turns 'unhealthy', buffers of the lost device are refused, and the next call
// recovers on a fresh device.
import { DeviceLostError, type BoundTensor } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestBackend, readF32, run, runOne, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { refMatmul } from './test-support/reference.ts';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

const N = 256;

describe.skipIf(!setup.ok)('device loss', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  async function matmulInputs(): Promise<{ a: BoundTensor; b: BoundTensor; host: Float32Array }> {
    const host = randomF32(N * N, 5);
    const a = await upload(backend, 'f32', [N, N], host);
    const b = await upload(backend, 'f32', [N, N], host);
    return { a, b, host };
  }

  it.each([
    ['while the kernel runs', 1],
    ['before the run reaches the GPU', 0],
  ] as const)('destroy() %s: runs in flight reject with DeviceLostError, then the backend recovers', async (_when, delayMs) => {
    const { a, b, host } = await matmulInputs();
    const first = await runOne(backend, { op: 'matmul', a, b });
    expect(first).toBeDefined();
    const oldDevice = backend.currentDevice();
    if (oldDevice === undefined) throw new Error('no device');

    const inFlight = [0, 1, 2].map(() => backend.run({ op: 'matmul', a, b }, [{ dtype: 'f32', shape: [N, N] }]));
    let settledBeforeDestroy = -1;
    let settledCount = 0;
    for (const p of inFlight) p.then(() => settledCount++, () => settledCount++);
    const destroy = (): void => {
      settledBeforeDestroy = settledCount;
      oldDevice.destroy();
    };
    const settled = Promise.allSettled(inFlight);
    if (delayMs === 0) destroy();
    else setTimeout(destroy, delayMs);
    const results = await settled;
    expect(settledBeforeDestroy).toBe(0);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DeviceLostError);
    }
    const health = backend.health();
    expect(health.state).toBe('unhealthy');
    expect('reason' in health && health.reason).toMatch(/destroyed/);

    // Buffers of the lost device: download and run refuse them; free ignores them.
    await expect(backend.download(first.buffer)).rejects.toBeInstanceOf(DeviceLostError);
    await expect(run(backend, { op: 'silu', x: a })).rejects.toBeInstanceOf(DeviceLostError);
    expect(() => backend.free(a.buffer)).not.toThrow();

    // That call already acquired a fresh device; new uploads and runs work on it.
    expect(backend.health()).toEqual({ state: 'healthy' });
    expect(backend.currentDevice()).not.toBe(oldDevice);
    const fresh = await matmulInputs();
    const product = await runOne(backend, { op: 'matmul', a: fresh.a, b: fresh.b });
    expectClose(await readF32(backend, product), refMatmul(host, host, N, N, N), 1e-4, 1e-4, 'after recovery');
  });

  it('init() after a loss acquires a new device', async () => {
    const device = backend.currentDevice();
    device?.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(backend.health().state).toBe('unhealthy');
    expect(await backend.init()).toEqual({ ok: true });
    expect(backend.health()).toEqual({ state: 'healthy' });
    expect(backend.currentDevice()).not.toBe(device);
  });
});
