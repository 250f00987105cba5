// Faults of the real WebGPU backend (SwiftShader), through the engine: the device destroyed in the middle of a
// batch, a shader that fails to compile, ops past the device's buffer limits, a GPU op that hangs past its
// deadline. Each call must still return the right result (small integer matmuls: exact in f32), with every
// fallback and its cause in the telemetry and no unhandled rejection. Elsewhere: gpu-process-kill.test.ts (the GPU
// process killed), concurrency.test.ts (1,000 concurrent calls), mixed-faults.test.ts (2,000 ops, 5% faults).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AllBackendsFailedError, Engine, type Tensor } from '@tandem/core';
import { cosineSimilarity, matmul } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { needBackends } from '../support/backends.ts';
import { auditFallbacks } from './fallback-audit.ts';
import { gpuWithBrokenShader, gpuWithLimits, HeldWebGpuBackend, webGpuBackend } from './gpu-fault-wrappers.ts';

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

/** An n x n matrix of small integers (products and sums exact in f32), as a tensor and on the host. */
function matrix(engine: Engine, n: number, seed: number): { t: Tensor<'f32'>; host: Float32Array } {
  const host = Float32Array.from({ length: n * n }, (_, i) => ((i * 7 + seed * 13) % 17) - 8);
  return { t: engine.tensor(host, [n, n]), host };
}

/** a x b on the host, from the reference. */
function matmulHost(a: Float32Array, b: Float32Array, n: number): Float32Array {
  return matmul(a, b, n, n, n);
}

/** The held run's deadline: far above a warm 16x16 run even on a loaded 2-core machine (the test waits it out once). */
const DEADLINE_MS = 10_000;

describe.skipIf(!ready)('real backend faults through the engine', () => {
  it('a WebGPU device destroyed in the middle of a batch: every call answers, from WASM, with the loss in telemetry', async () => {
    const webgpu = webGpuBackend();
    const engine = await Engine.create({
      backends: [webgpu, new WasmBackend({ threads: 1 })],
      strategy: 'gpu-preferred',
      recoveryIntervalMs: 50,
    });
    const n = 64;
    const a = matrix(engine, n, 1);
    const b = matrix(engine, n, 2);
    const want = matmulHost(a.host, b.host, n); // small integers: exact in f32
    await (await engine.matmul(a.t, b.t)).read();
    const device = webgpu.currentDevice();
    if (device === undefined) throw new Error('no device');
    // The loss at a synchronised point, whatever the GPU's speed: inside the 12th of the 24 calls' submits.
    const queue = device.queue;
    const submit = queue.submit.bind(queue);
    let submits = 0;
    queue.submit = (buffers) => {
      submit(buffers);
      if (++submits === 12) device.destroy();
    };
    const calls = Array.from({ length: 24 }, () => engine.matmul(a.t, b.t));
    const outputs = await Promise.all(calls); // every call answers: none rejects
    // A result that was computed on the device and still lived only there when it was destroyed is computed again
    // when read (lineage.ts), with a tensor-recomputed notice naming the loss: every read is right.
    for (const c of outputs) expect(await c.read()).toEqual(want);
    const recomputed = engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed');
    for (const notice of recomputed) expect(notice.detail).toMatch(/device lost|destroyed/);
    console.log(
      `device destroyed mid-batch: ${outputs.length} calls answered; ${recomputed.length} results lost with the device before being read, recomputed`,
    );
    expect(submits).toBeGreaterThanOrEqual(12);
    expect(recomputed.length).toBeLessThan(outputs.length);
    const lost = engine.telemetry.opEvents().filter((e) => e.backend === 'webgpu' && !e.ok);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost[0]?.error).toMatch(/lost|destroyed/i);
    const audit = auditFallbacks(engine.telemetry.opEvents());
    expect(audit.unexplained).toEqual([]);
    expect(audit.explained).toBe(audit.failed);
    await engine.dispose();
  }, 60_000);

  it('a shader that fails to compile: the op falls back to WASM with the compile error as its cause, other ops stay on the GPU', async () => {
    const webgpu = webGpuBackend((gpu) => gpuWithBrokenShader(gpu, ['matmul_f32', 'matmul_f32_vec4']));
    const engine = await Engine.create({
      backends: [webgpu, new WasmBackend({ threads: 1 })],
      strategy: 'gpu-preferred',
    });
    const n = 16;
    const a = matrix(engine, n, 3);
    const b = matrix(engine, n, 4);
    expect(await (await engine.matmul(a.t, b.t)).read()).toEqual(matmulHost(a.host, b.host, n));
    const events = engine.telemetry.opEvents();
    expect(events[0]).toMatchObject({ backend: 'webgpu', ok: false });
    expect(events[0]?.error).toMatch(/shader|pipeline|invalid|error/i);
    expect(events[1]).toMatchObject({
      backend: 'wasm',
      ok: true,
      reason: { kind: 'error-fallback', failed: 'webgpu' },
    });
    await (await engine.scale(a.t, 2)).read();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ op: 'scale', backend: 'webgpu', ok: true });
    await engine.dispose();
  }, 60_000);

  it("an op whose output is past the real device's storage binding limit is refused with the limit named, never attempted", async () => {
    const webgpu = webGpuBackend();
    const engine = await Engine.create({
      backends: [webgpu, new WasmBackend({ threads: 1 })],
      strategy: 'gpu-preferred',
    });
    const { maxStorageBufferBindingSize: limit, maxBufferSize } = webgpu.describe();
    // An outer product [n, 1] x [1, n] whose f32 output needs just over the limit: small inputs, nothing allocated.
    const n = Math.ceil(Math.sqrt(Math.max(limit, maxBufferSize) / 4 + 1));
    const a = engine.tensor(new Float32Array(n).fill(1), [n, 1]);
    const b = engine.tensor(new Float32Array(n).fill(2), [1, n]);
    const plan = engine.explain({ op: 'matmul', a, b });
    expect(plan.selection.backend).toBe('wasm');
    expect(plan.skipped.find((s) => s.backend === 'webgpu')?.reason).toMatch(
      /output 0 needs a \d+-byte (storage binding; maxStorageBufferBindingSize|buffer; maxBufferSize) is \d+/,
    );
    const onlyGpu = await engine.run({ op: 'matmul', a, b }, { strategy: { only: 'webgpu' } }).catch((e: unknown) => e);
    expect(onlyGpu).toBeInstanceOf(AllBackendsFailedError);
    expect(String(onlyGpu)).toMatch(/webgpu: .*(maxStorageBufferBindingSize|maxBufferSize) is \d+/);
    expect(engine.telemetry.opEvents()).toEqual([]); // refused before any attempt: no buffer was requested
    await engine.dispose();
  }, 60_000);

  it('on a device with 1 MiB limits, ops past them run on WASM and smaller ones on the GPU, all correct', async () => {
    const small = 1 << 20;
    const webgpu = webGpuBackend((gpu) =>
      gpuWithLimits(gpu, { maxStorageBufferBindingSize: small, maxBufferSize: small }),
    );
    const engine = await Engine.create({
      backends: [webgpu, new WasmBackend({ threads: 1 })],
      strategy: 'gpu-preferred',
    });
    expect(webgpu.describe()).toMatchObject({ maxStorageBufferBindingSize: small, maxBufferSize: small });
    for (const count of [small / 4 - 64, small / 4 + 64, 3 * small]) {
      const x = engine.tensor(
        Float32Array.from({ length: count }, (_, i) => (i % 1000) - 500),
        [count],
      );
      const values = await (await engine.scale(x, 0.5)).read();
      expect(values[count - 1]).toBe((((count - 1) % 1000) - 500) * 0.5);
      expect(values[777]).toBe(138.5);
      const last = engine.telemetry.opEvents().at(-1);
      expect(last).toMatchObject({ ok: true, backend: count * 4 <= small ? 'webgpu' : 'wasm' });
      if (count * 4 > small)
        expect(last?.reason).toMatchObject({
          kind: 'gpu-unavailable',
          why: expect.stringMatching(/maxStorageBufferBindingSize is 1048576/),
        });
      x.dispose();
    }
    await engine.dispose();
  }, 60_000);

  it('cosine targets past one storage binding run on the GPU in aligned ranges, one dispatch each, all correct', async () => {
    // 64 KiB bindings, 1 MiB buffers: 300 targets of 100 floats (120,000 bytes) need 2 ranges of 160 rows (rows of
    // 400 bytes start at multiples of 256 bytes every 16 rows), 2,000 targets 13; dims 100 and 33 take the vec4 and
    // the scalar kernels. Special rows (zero, NaN, huge) sit on both sides of a range boundary.
    const webgpu = webGpuBackend((gpu) =>
      gpuWithLimits(gpu, { maxStorageBufferBindingSize: 1 << 16, maxBufferSize: 1 << 20 }),
    );
    const engine = await Engine.create({
      backends: [webgpu, new WasmBackend({ threads: 1 })],
      strategy: { only: 'webgpu' },
    });
    for (const [nq, nt, dim] of [
      [3, 300, 100],
      [1, 2000, 100],
      [2, 700, 33],
    ] as const) {
      const queries = Float32Array.from({ length: nq * dim }, (_, i) => Math.sin(i * 0.37) * 3);
      const targets = Float32Array.from({ length: nt * dim }, (_, i) => Math.cos(i * 0.11) * 2);
      targets.fill(0, 159 * dim, 160 * dim);
      targets[160 * dim + 5] = Number.NaN;
      targets.fill(1e30, (nt - 1) * dim, nt * dim);
      const got = await (
        await engine.cosineSimilarity(engine.tensor(queries, [nq, dim]), engine.tensor(targets, [nt, dim]))
      ).read();
      expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ ok: true, backend: 'webgpu' });
      const want = cosineSimilarity(queries, targets, nq, nt, dim);
      for (let i = 0; i < nq * nt; i++) {
        const value = got[i] ?? Number.NaN;
        const expected = want[i] ?? 0;
        if (Number.isNaN(expected)) expect(value, `score ${i}`).toBeNaN();
        else expect(Math.abs(value - expected), `score ${i}`).toBeLessThan(1e-5);
      }
    }
    await engine.dispose();
  }, 60_000);

  it('a GPU op that hangs past its deadline is abandoned and re-run on WASM; its late result is freed when it comes', async () => {
    // The fourth run is held until the test releases it, well after the deadline fired. The first run warms the
    // backend (pipeline compiled) before the engine and its deadline exist; the deadline (10 s) is then far above
    // what the other, warm runs take, so only the held run can miss it.
    const held = new HeldWebGpuBackend(4);
    const n = 16;
    expect(await held.init()).toEqual({ ok: true });
    const spec = { dtype: 'f32', shape: [n, n] } as const;
    const input = { ...spec, buffer: await held.upload(new Uint8Array(n * n * 4), spec) };
    for (const out of (await held.run({ op: 'matmul', a: input, b: input }, [spec])).outputs) held.free(out);
    held.free(input.buffer);
    const engine = await Engine.create({
      backends: [held, new WasmBackend({ threads: 1 })],
      strategy: 'gpu-preferred',
      opDeadlineMs: DEADLINE_MS,
    });
    const a = matrix(engine, n, 5);
    const want = matmulHost(a.host, a.host, n);
    // The warm runs' results stay referenced: collected, their GPU copies would be freed through the spy below (a
    // garbage collection between the spy and its checks made this test fail once).
    const warm: Tensor[] = [];
    for (let i = 0; i < 2; i++) {
      const result = await engine.matmul(a.t, a.t);
      warm.push(result);
      expect(await result.read()).toEqual(want);
    }
    expect(engine.telemetry.opEvents().map((e) => [e.backend, e.ok])).toEqual([
      ['webgpu', true],
      ['webgpu', true],
    ]);
    const freed: number[] = [];
    let onFreed: () => void = () => undefined;
    const firstFree = new Promise<void>((resolve) => (onFreed = resolve));
    const free = held.free.bind(held);
    held.free = (buffer) => {
      freed.push(buffer.byteLength);
      free(buffer);
      onFreed();
    };
    const rescued = engine.matmul(a.t, a.t);
    await held.holding;
    expect(await (await rescued).read()).toEqual(want);
    const [failedEvent, rescuedEvent] = engine.telemetry.opEvents().slice(-2);
    expect(failedEvent).toMatchObject({
      backend: 'webgpu',
      ok: false,
      error: `[webgpu] matmul did not finish within ${DEADLINE_MS} ms`,
    });
    expect(rescuedEvent).toMatchObject({
      backend: 'wasm',
      ok: true,
      reason: { kind: 'error-fallback', failed: 'webgpu', error: failedEvent?.error },
    });
    expect(freed).toEqual([]); // the abandoned run is still held
    held.release();
    await firstFree;
    expect(freed).toEqual([n * n * 4]); // its output, released by the engine as soon as it arrived
    expect(await (await engine.matmul(a.t, a.t)).read()).toEqual(want); // and the GPU serves again
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'webgpu', ok: true });
    for (const result of warm) result.dispose();
    await engine.dispose();
  }, 60_000);
});
