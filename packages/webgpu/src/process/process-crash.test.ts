// A real SIGKILL of the GPU process in the middle of a batch of runs: the pending runs reject with a
// DeviceLostError naming the signal, health turns 'unhealthy', the dead process's buffers are refused, the
// next init() starts a new process; and an Engine over the proxy and the reference answers every call
// correctly through the crash (the fallback and its cause in telemetry), then runs on a new GPU process.
import { DeviceLostError, Engine, type BoundTensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { afterAll, describe, expect, it } from 'vitest';
import { expectClose, randomF32 } from '../test-support/random.ts';
import { matmul } from '@tandem/reference';
import { createProcessWebGpuBackend, type ProcessWebGpuBackend } from './process-backend.ts';
import { childProcessIds, createTestProxy, processExists } from './process-test-support.ts';

const setup = await createTestProxy();
const started: ProcessWebGpuBackend[] = [];

afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
  await Promise.all(started.map((b) => b.dispose()));
  // No GPU process outlives the tests: this test process has no children left.
  expect(childProcessIds()).toEqual([]);
});

/** Resolves once `condition` holds, polling; rejects after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Matmul size: ~100 ms per run on SwiftShader, so a batch is still running when the kill lands. */
const N = 320;

describe.skipIf(!setup.ok)('a GPU process killed mid-batch', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  async function upload(values: Float32Array): Promise<BoundTensor> {
    const buffer = await backend.upload(new Uint8Array(values.buffer), { dtype: 'f32', shape: [N, N] });
    return { dtype: 'f32', shape: [N, N], buffer };
  }

  it('pending runs reject with DeviceLostError naming SIGKILL; health, stale buffers and a fresh process follow', async () => {
    const host = randomF32(N * N, 11);
    const a = await upload(host);
    const specs = [{ dtype: 'f32' as const, shape: [N, N] }];
    await backend.run({ op: 'matmul', a, b: a }, specs); // compiles the pipeline
    const pid = backend.processId() ?? -1;

    const runs = Array.from({ length: 8 }, () => backend.run({ op: 'matmul', a, b: a }, specs));
    const outcomes = runs.map((p) =>
      p.then(
        () => 'ok' as const,
        (error: unknown) => error,
      ),
    );
    await Promise.race(runs); // the first finished; the rest of the batch is queued behind it
    process.kill(pid, 'SIGKILL');
    const settled = await Promise.all(outcomes);

    const failures = settled.filter((o) => o !== 'ok');
    expect(settled[0]).toBe('ok');
    expect(failures.length).toBeGreaterThan(0);
    for (const error of failures) {
      expect(error).toBeInstanceOf(DeviceLostError);
      expect(String(error)).toMatch(new RegExp(`GPU process ${pid} was killed by SIGKILL \\(during run matmul\\)`));
    }
    expect(backend.health()).toEqual({ state: 'unhealthy', reason: `GPU process ${pid} was killed by SIGKILL` });
    expect(processExists(pid)).toBe(false);

    // The dead process's buffers: refused by download and run, ignored by free.
    await expect(backend.download(a.buffer)).rejects.toThrow(/was killed by SIGKILL; upload it again/);
    expect(() => backend.free(a.buffer)).not.toThrow();

    // init() starts a new process; uploads and runs work there.
    expect(await backend.init()).toEqual({ ok: true });
    const newPid = backend.processId();
    expect(newPid).toBeDefined();
    expect(newPid).not.toBe(pid);
    expect(backend.health()).toEqual({ state: 'healthy' });
    const fresh = await upload(host);
    const result = await backend.run({ op: 'matmul', a: fresh, b: fresh }, specs);
    const out = result.outputs[0];
    if (out === undefined) throw new Error('no output');
    const bytes = await backend.download(out);
    expectClose(
      new Float32Array(bytes.buffer, bytes.byteOffset, N * N),
      matmul(host, host, N, N, N),
      1e-3,
      1e-4,
      'after restart',
    );
  });

  it('SIGABRT (what an abort inside dawn.node raises) is reported the same way', async () => {
    const pid = backend.processId() ?? -1;
    const x = await upload(randomF32(N * N, 12));
    const run = backend.run({ op: 'matmul', a: x, b: x }, [{ dtype: 'f32', shape: [N, N] }]);
    await until(() => backend.pendingRequests('run') === 1, 'the run to be sent');
    process.kill(pid, 'SIGABRT');
    await expect(run).rejects.toThrow(new RegExp(`GPU process ${pid} was killed by SIGABRT`));
    expect(backend.health().state).toBe('unhealthy');
    expect(await backend.init()).toEqual({ ok: true });
  });

  it('an Engine over the proxy and the reference answers every call through the crash, then recovers on a new process', async () => {
    const gpu = createProcessWebGpuBackend({
      swiftShader: process.env['TANDEM_TEST_GPU'] !== 'native',
      stderr: 'capture',
    });
    started.push(gpu);
    const engine = await Engine.create({
      backends: [gpu, new ReferenceBackend()],
      strategy: 'gpu-preferred',
      recoveryIntervalMs: 0,
      tracker: { coolDownMs: 100 },
    });
    try {
      const inputs = Array.from({ length: 12 }, (_, i) => randomF32(N * N, 100 + i));
      const tensors = inputs.map((values) => engine.tensor(values, [N, N]));
      const want = (i: number): Float32Array =>
        matmul(inputs[i] ?? new Float32Array(0), inputs[i + 1] ?? new Float32Array(0), N, N, N);
      const call = async (i: number): Promise<Float32Array> => {
        const [a, b] = [tensors[i], tensors[i + 1]];
        if (a === undefined || b === undefined) throw new Error(`no tensor ${i}`);
        return (await engine.matmul(a, b)).read();
      };

      // Before: on the GPU process.
      expectClose(await call(0), want(0), 1e-3, 1e-4, 'before');
      expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'webgpu', ok: true });
      const pid = gpu.processId() ?? -1;

      // A batch of 8 calls; SIGKILL once the engine has sent all 8 runs. Each call uploads its inputs first, and the
      // GPU process works through uploads and runs in order, so on a loaded machine early runs may have finished
      // (and been read, or be waiting to be read) by then; the last run is still computing (~100 ms).
      const sendRun = gpu.run.bind(gpu);
      let sent = 0;
      gpu.run = (op, outputs) => {
        sent++;
        return sendRun(op, outputs);
      };
      const batch = Array.from({ length: 8 }, (_, k) => call(k + 2));
      await until(() => sent === 8, 'the engine to send all 8 runs');
      const pendingAtKill = gpu.pendingRequests('run');
      process.kill(pid, 'SIGKILL');
      const results = await Promise.all(batch);
      results.forEach((got, k) => {
        expectClose(got, want(k + 2), 1e-3, 1e-4, `call ${k + 2}`);
      });

      // Every run the kill cut short failed over to the reference, with the cause in telemetry; a result that had
      // been computed but not yet read was recomputed (its read was cut short), with the cause in its notice.
      const events = engine.telemetry.opEvents();
      const failed = events.filter((e) => e.backend === 'webgpu' && !e.ok);
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed.length).toBeLessThanOrEqual(pendingAtKill); // a reply already on its way when the kill landed still counts
      for (const e of failed) expect(e.error).toMatch(new RegExp(`GPU process ${pid} was killed by SIGKILL`));
      const fallbacks = events.filter((e) => e.reason.kind === 'error-fallback');
      expect(fallbacks).toHaveLength(failed.length);
      for (const e of fallbacks) {
        expect(e).toMatchObject({
          backend: 'reference',
          ok: true,
          reason: { failed: 'webgpu', error: expect.stringMatching(/killed by SIGKILL/) },
        });
      }
      const recomputed = engine.telemetry.noticeEvents().filter((n) => n.kind === 'tensor-recomputed');
      for (const n of recomputed) expect(n.detail).toMatch(new RegExp(`GPU process ${pid} was killed by SIGKILL`));
      expect(failed.length + recomputed.length).toBeLessThanOrEqual(8);
      expect(engine.telemetry.noticeEvents()).toContainEqual(
        expect.objectContaining({
          kind: 'backend-unhealthy',
          backend: 'webgpu',
          detail: expect.stringContaining(`GPU process ${pid} was killed by SIGKILL`),
        }),
      );

      // Later calls: answered throughout, and back on the GPU once a new process is up.
      let lastOnGpu = false;
      for (let attempt = 0; attempt < 200 && !lastOnGpu; attempt++) {
        expectClose(await call(10), want(10), 1e-3, 1e-4, `recovery call ${attempt}`);
        lastOnGpu = engine.telemetry.opEvents().at(-1)?.backend === 'webgpu';
        if (!lastOnGpu) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(lastOnGpu).toBe(true);
      expect(gpu.processId()).not.toBe(pid);
      expect(engine.telemetry.noticeEvents()).toContainEqual(
        expect.objectContaining({ kind: 'backend-recovered', backend: 'webgpu' }),
      );
    } finally {
      await engine.dispose();
    }
  });
});
