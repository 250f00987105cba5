// Backend-level behaviour: init/describe/health, supportsOp limits, buffers staying resident across chained
// ops, pooling, timing, zero-size tensors, and errors that surface as BackendError subclasses.
import {
  BackendError,
  halfToFloat,
  InvalidArgumentError,
  type BoundTensor,
  type Op,
  type TensorSpec,
} from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { WebGpuBackend } from './backend.ts';
import { checkWebGpuSupport } from './support.ts';
import { DEFAULT_LIMITS } from './device-context.ts';
import { createTestBackend, readF32, runOne, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { matmul, scale, silu } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe('WebGpuBackend without a GPU', () => {
  it('init() resolves { ok: false } with a reason when there is no adapter', async () => {
    const backend = new WebGpuBackend({ gpu: () => undefined });
    expect(await backend.init()).toEqual({ ok: false, reason: 'no WebGPU implementation in this host' });
    expect(backend.health()).toEqual({ state: 'unavailable', reason: 'no WebGPU implementation in this host' });
    const failing = new WebGpuBackend({ gpu: () => Promise.reject(new Error('no dawn')) });
    const result = await failing.init();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('no dawn');
  });

  it('upload before a device exists rejects with a BackendError naming the reason', async () => {
    const backend = new WebGpuBackend({ gpu: () => undefined });
    await expect(backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] })).rejects.toBeInstanceOf(BackendError);
  });

  it('supportsOp refuses bindings above maxStorageBufferBindingSize, naming the size and the limit', () => {
    const big: TensorSpec = { dtype: 'f32', shape: [8192, 8192] };
    const verdict = checkWebGpuSupport({ op: 'silu', x: big }, DEFAULT_LIMITS);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(
      /268435456-byte storage binding; maxStorageBufferBindingSize is 134217728/,
    );
    expect(checkWebGpuSupport({ op: 'silu', x: { dtype: 'f32', shape: [1024] } }, DEFAULT_LIMITS)).toEqual({
      ok: true,
    });
  });

  it('supportsOp refuses dtypes outside the table and attention heads beyond workgroup memory', () => {
    const verdict = checkWebGpuSupport(
      { op: 'softmax', x: { dtype: 'f16', shape: [4] }, causal: false },
      DEFAULT_LIMITS,
    );
    expect(verdict).toEqual({ ok: false, reason: 'softmax does not support dtype f16' });
    const q: TensorSpec = { dtype: 'f32', shape: [1, 1, 4096] };
    const attention = checkWebGpuSupport(
      { op: 'attention', q, k: q, v: q, causal: false, scale: undefined },
      DEFAULT_LIMITS,
    );
    expect(!attention.ok && attention.reason).toMatch(/workgroup memory/);
  });
});

describe.skipIf(!setup.ok)('WebGpuBackend on a device', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  it('describes the adapter, limits, features and a performance prior', () => {
    const d = backend.describe();
    expect(d.name.length).toBeGreaterThan(0);
    expect(d.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(DEFAULT_LIMITS.maxStorageBufferBindingSize);
    expect(d.maxBufferSize).toBeGreaterThanOrEqual(DEFAULT_LIMITS.maxBufferSize);
    expect(d.performance?.flopsPerMs).toBeGreaterThan(0);
    for (const f of d.features) expect(['timestamp-query', 'shader-f16']).toContain(f);
    expect(backend.health()).toEqual({ state: 'healthy' });
    expect(backend.kind).toBe('gpu');
    expect(backend.priority).toBe(20);
    console.info(
      `[webgpu tests] adapter: ${d.name}; features: ${d.features.join(', ') || 'none'}; binding limit ${d.maxStorageBufferBindingSize}`,
    );
  });

  it('chains ops on resident buffers and reuses pooled buffers', async () => {
    const [m, k, n] = [17, 33, 7];
    const a = randomF32(m * k, 1);
    const b = randomF32(k * n, 2);
    const ta = await upload(backend, 'f32', [m, k], a);
    const tb = await upload(backend, 'f32', [k, n], b);
    const product = await runOne(backend, { op: 'matmul', a: ta, b: tb });
    const scaled = await runOne(backend, { op: 'scale', x: product, factor: 2 });
    const activated = await runOne(backend, { op: 'silu', x: scaled });
    const expected = silu(scale(matmul(a, b, m, k, n), 2));
    expectClose(await readF32(backend, activated), expected, 1e-5, 1e-4, 'chain');
    const before = backend.poolStats()?.hits ?? 0;
    backend.free(product.buffer);
    const again = await runOne(backend, { op: 'matmul', a: ta, b: tb });
    expect(backend.poolStats()?.hits ?? 0).toBeGreaterThan(before);
    expectClose(await readF32(backend, again), matmul(a, b, m, k, n), 1e-5, 1e-4, 'reused');
  });

  it('reports a positive kernel time', async () => {
    const t = await upload(backend, 'f32', [64, 64], randomF32(4096, 3));
    const result = await backend.run({ op: 'matmul', a: t, b: t }, [{ dtype: 'f32', shape: [64, 64] }]);
    expect(result.kernelMs).toBeGreaterThan(0);
    expect(result.kernelMs).toBeLessThan(10_000);
  });

  it('uploads a tensor larger than one 64 MiB write piece whole (every piece lands at its offset)', async () => {
    const count = 16 * 2 ** 20 + 3; // 64 MiB + 12 bytes: two pieces, the second 12 bytes long
    const values = Float32Array.from({ length: count }, (_, i) => (i % 65_521) - 32_000);
    const t = await upload(backend, 'f32', [count], values);
    const back = new Float32Array((await backend.download(t.buffer)).slice().buffer);
    expect(back.length).toBe(count);
    // Every element (the values are small integers: exact, no NaN), reporting the first that differs.
    let firstWrong = -1;
    for (let i = 0; i < count && firstWrong < 0; i++) if (back[i] !== values[i]) firstWrong = i;
    expect(
      firstWrong,
      firstWrong < 0 ? '' : `element ${firstWrong}: ${back[firstWrong]} vs ${values[firstWrong]}`,
    ).toBe(-1);
    backend.free(t.buffer);
  }, 60_000);

  it('stores f16 as binary16 two per word: every bit pattern widens exactly and packs back bit for bit', async () => {
    const count = 65_535; // every pattern but 0xffff (a NaN), odd: the last word's high half is padding
    const bits = Uint16Array.from({ length: count }, (_, h) => h);
    const t = await upload(backend, 'f16', [count], bits);
    // Widened: dequantize f16 -> f32 is the unpack kernel and a copy.
    const widened = await readF32(backend, await runOne(backend, { op: 'dequantize', x: t }));
    const wrongWidened = Array.from(bits).filter(
      (h, i) => !Object.is(widened[i], halfToFloat(h)) && !(Number.isNaN(widened[i]) && Number.isNaN(halfToFloat(h))),
    );
    expect(wrongWidened).toEqual([]);
    // Through an f16 op (x * 1) and packed again: the same bits, NaNs as the quiet NaN with their sign.
    const scaled = await runOne(backend, { op: 'scale', x: t, factor: 1 });
    const back = new Uint16Array((await backend.download(scaled.buffer)).slice().buffer);
    const isNaN16 = (h: number): boolean => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
    const wrongPacked = Array.from(bits).filter((h, i) =>
      isNaN16(h) ? back[i] !== ((h & 0x8000) | 0x7e00) : back[i] !== h,
    );
    expect(wrongPacked).toEqual([]);
    // Two bytes per value on the device: the freed buffer returns a bucket of ~128 KiB to the pool, not ~256 KiB.
    const pooled = backend.poolStats()?.pooledBytes ?? 0;
    backend.free(t.buffer);
    const returned = (backend.poolStats()?.pooledBytes ?? 0) - pooled;
    expect(returned).toBeGreaterThanOrEqual(count * 2);
    expect(returned).toBeLessThan(count * 4);
  });

  it('handles zero-size tensors without zero-size buffers or dispatches', async () => {
    const empty = await upload(backend, 'f32', [0, 5], []);
    expect(empty.buffer.byteLength).toBe(0);
    expect((await backend.download(empty.buffer)).byteLength).toBe(0);
    const out = await runOne(backend, { op: 'silu', x: empty });
    expect((await readF32(backend, out)).length).toBe(0);
    const q8 = await upload(backend, 'q8_0', [0, 32], new Uint8Array(0));
    const dq = await runOne(backend, { op: 'dequantize', x: q8 });
    expect((await readF32(backend, dq)).length).toBe(0);
  });

  it('rejects wrong upload sizes with InvalidArgumentError and unknown buffers with BackendError', async () => {
    await expect(backend.upload(new Uint8Array(3), { dtype: 'f32', shape: [1] })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    const bogus: BoundTensor = { dtype: 'f32', shape: [1], buffer: { backend: 'webgpu', id: 987654, byteLength: 4 } };
    await expect(backend.run({ op: 'silu', x: bogus }, [{ dtype: 'f32', shape: [1] }])).rejects.toMatchObject({
      code: 'UNKNOWN_BUFFER',
    });
    await expect(backend.download(bogus.buffer)).rejects.toBeInstanceOf(BackendError);
    const freed = await upload(backend, 'f32', [1], [1]);
    backend.free(freed.buffer);
    backend.free(freed.buffer);
    await expect(backend.download(freed.buffer)).rejects.toMatchObject({ code: 'UNKNOWN_BUFFER' });
  });

  it('refuses unsupported ops in run() with a BackendError carrying the reason', async () => {
    const t = await upload(backend, 'f16', [2], new Uint16Array(2));
    const op: Op<BoundTensor> = { op: 'silu', x: t };
    await expect(backend.run(op, [{ dtype: 'f32', shape: [2] }])).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
});
