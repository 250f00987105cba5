// A real device.destroy() in the middle of a sequence of runs (at a synchronised point: inside the first submit): the runs in flight reject with DeviceLostError
// (no hang, no crash), health turns 'unhealthy', buffers of the lost device are refused, and the next call
// recovers on a fresh device.
import { DeviceLostError, type BoundTensor } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestBackend, readF32, run, runOne, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { matmul } from '@tandem/reference';

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
    ['right after the first run is submitted to the GPU', 'submitted'],
    ['before the runs reach the GPU', 'before'],
  ] as const)(
    'destroy() %s: runs in flight reject with DeviceLostError, then the backend recovers',
    async (_when, at) => {
      const { a, b, host } = await matmulInputs();
      const first = await runOne(backend, { op: 'matmul', a, b });
      expect(first).toBeDefined();
      const oldDevice = backend.currentDevice();
      if (oldDevice === undefined) throw new Error('no device');

      let settledBeforeDestroy = -1;
      let settledCount = 0;
      const destroy = (): void => {
        settledBeforeDestroy = settledCount;
        oldDevice.destroy();
      };
      // A synchronised loss: inside the first submit() after it hands the work to the GPU, so no run has finished,
      // however fast the GPU (a timer would race a real GPU's completion).
      const queue = oldDevice.queue;
      const submit = queue.submit.bind(queue);
      let submits = 0;
      if (at === 'submitted') {
        queue.submit = (buffers) => {
          submit(buffers);
          if (++submits === 1) destroy();
        };
      }
      const inFlight = [0, 1, 2].map(() => backend.run({ op: 'matmul', a, b }, [{ dtype: 'f32', shape: [N, N] }]));
      for (const p of inFlight)
        p.then(
          () => settledCount++,
          () => settledCount++,
        );
      const settled = Promise.allSettled(inFlight);
      if (at === 'before') destroy();
      const results = await settled;
      expect(settledBeforeDestroy).toBe(0);
      if (at === 'submitted') expect(submits).toBeGreaterThanOrEqual(1);
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
      expectClose(await readF32(backend, product), matmul(host, host, N, N, N), 1e-4, 1e-4, 'after recovery');
    },
  );

  it('init() after a loss acquires a new device', async () => {
    const device = backend.currentDevice();
    if (device === undefined) throw new Error('no device');
    device.destroy();
    await device.lost; // the backend's own lost handler ran before this one resolves to us
    expect(backend.health().state).toBe('unhealthy');
    expect(await backend.init()).toEqual({ ok: true });
    expect(backend.health()).toEqual({ state: 'healthy' });
    expect(backend.currentDevice()).not.toBe(device);
  });
});
