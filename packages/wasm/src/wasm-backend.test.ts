import { describe, expect, it } from 'vitest';
import { BackendError, OutOfMemoryError, type BoundTensor } from '@tandem/core';
import { WasmBackend } from './wasm-backend.ts';
import { LinearMemory } from './linear-memory.ts';
import { webAssembly } from './wasm-api.ts';
import { asF32, bytesOf, f32, runF32, startedBackend } from './test-support/harness.ts';

describe('WasmBackend lifecycle', () => {
  it('starts, reports the build it loaded and is healthy', async () => {
    const backend = await startedBackend();
    const d = backend.describe();
    expect(d.features).toContain('simd');
    expect(d.name).toMatch(/tandem-(simd|relaxed)\.wasm/);
    expect(d.memoryBytes).toBe(4 * 1024 ** 3);
    expect(backend.health()).toEqual({ state: 'healthy' });
    expect(backend.kind).toBe('cpu');
    expect(backend.priority).toBe(10);
  });

  it('resolves { ok: false } naming the missing file and the build command when the kernels are not built', async () => {
    const backend = new WasmBackend({ distUrl: new URL('file:///nonexistent-tandem-dist/') });
    const result = await backend.init();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain('tandem-');
    expect(result.reason).toContain('.wasm');
    expect(result.reason).toContain('npm run build -w @tandem/wasm');
    expect(backend.health().state).toBe('unavailable');
    await expect(backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] })).rejects.toBeInstanceOf(BackendError);
  });

  it('dispose() drops every buffer and a later init() starts over', async () => {
    const backend = await startedBackend();
    const buffer = await backend.upload(new Uint8Array(64), { dtype: 'f32', shape: [16] });
    await backend.dispose();
    expect(backend.health().state).toBe('unavailable');
    expect((await backend.init()).ok).toBe(true);
    await expect(backend.download(buffer)).rejects.toThrow(/not live/);
  });
});

describe('WasmBackend memory', () => {
  it('round-trips bytes through upload and download', async () => {
    const backend = await startedBackend();
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 255);
    const buffer = await backend.upload(data, { dtype: 'u32', shape: [250] });
    expect(buffer.byteLength).toBe(1000);
    expect(await backend.download(buffer)).toEqual(data);
  });

  it('frees and reuses memory: a churn of uploads does not grow the heap', async () => {
    const backend = await startedBackend();
    const spec = { dtype: 'f32' as const, shape: [1 << 18] };
    const first = await backend.upload(new Uint8Array(1 << 20), spec);
    backend.free(first);
    const end = backend.memoryStats()?.endBytes;
    for (let i = 0; i < 50; i++) backend.free(await backend.upload(new Uint8Array(1 << 20), spec));
    expect(backend.memoryStats()?.endBytes).toBe(end);
    expect(backend.memoryStats()?.usedBytes).toBe(0);
    backend.free(first); // double free is ignored
  });

  it('keeps earlier tensors readable and usable after memory.grow detaches the old buffer', async () => {
    const backend = await startedBackend();
    const a = f32([4], [1, 2, 3, 4]);
    const spec = { dtype: a.dtype, shape: a.shape };
    const small = await backend.upload(bytesOf(a.data), spec);
    const before = backend.memoryStats()?.endBytes ?? 0;
    const big = await backend.upload(new Uint8Array(64 << 20), { dtype: 'f32', shape: [16 << 20] });
    expect(backend.memoryStats()?.endBytes ?? 0).toBeGreaterThan(before);
    expect(asF32(await backend.download(small))).toEqual(new Float32Array([1, 2, 3, 4]));
    const bound: BoundTensor = { ...spec, buffer: small };
    const result = await backend.run({ op: 'scale', x: bound, factor: 2 }, [spec]);
    expect(asF32(await backend.download(result.outputs[0] ?? small))).toEqual(new Float32Array([2, 4, 6, 8]));
    backend.free(big);
  });

  it('re-creates its byte view after growth (LinearMemory)', () => {
    const api = webAssembly();
    if (api === undefined) throw new Error('no WebAssembly');
    const memory = new LinearMemory(new api.Memory({ initial: 1, maximum: 16 }), 16 * 65536);
    const view = memory.bytes();
    view[100] = 42;
    expect(memory.growTo(3 * 65536)).toBe(true);
    expect(view.byteLength).toBe(0); // the old view is detached
    expect(memory.bytes().byteLength).toBe(3 * 65536);
    expect(memory.bytes()[100]).toBe(42);
    expect(memory.growTo(17 * 65536)).toBe(false);
  });

  it('throws OutOfMemoryError naming the tensor and the limit when memory is capped', async () => {
    const backend = await startedBackend({ maxMemoryBytes: 32 << 20 });
    const attempt = backend.upload(new Uint8Array(40 << 20), { dtype: 'f32', shape: [10 << 20] });
    await expect(attempt).rejects.toBeInstanceOf(OutOfMemoryError);
    await expect(attempt).rejects.toThrow(/upload of f32 \[10485760\].*limit 33554432 bytes/);
  });

  it('throws OutOfMemoryError for an output past the 4 GiB wasm32 limit and frees what it had allocated', async () => {
    const backend = await startedBackend();
    // 46340^2 outputs: within core's element limit (2^31 - 1), 8.6 GB of f32: past the wasm32 memory.
    const a = await backend.upload(new Uint8Array(46340 * 4), { dtype: 'f32', shape: [46340, 1] });
    const b = await backend.upload(new Uint8Array(46340 * 4), { dtype: 'f32', shape: [1, 46340] });
    const op = {
      op: 'matmul' as const,
      a: { dtype: 'f32' as const, shape: [46340, 1], buffer: a },
      b: { dtype: 'f32' as const, shape: [1, 46340], buffer: b },
    };
    const verdict = backend.supportsOp({
      op: 'matmul',
      a: { dtype: 'f32', shape: [46340, 1] },
      b: { dtype: 'f32', shape: [1, 46340] },
    });
    expect(verdict.ok).toBe(false);
    const used = backend.memoryStats()?.usedBytes;
    const attempt = backend.run(op, [{ dtype: 'f32', shape: [46340, 46340] }]);
    await expect(attempt).rejects.toBeInstanceOf(OutOfMemoryError);
    await expect(attempt).rejects.toThrow(/matmul output 0 f32 \[46340, 46340\].*limit 4294967296 bytes/);
    expect(backend.memoryStats()?.usedBytes).toBe(used);
  });

  it('rejects buffers it does not own and outputs that do not match the op', async () => {
    const backend = await startedBackend();
    const foreign = { backend: 'other', id: 1, byteLength: 16 };
    await expect(backend.download(foreign)).rejects.toThrow(/not live/);
    const x = await backend.upload(new Uint8Array(16), { dtype: 'f32', shape: [4] });
    await expect(
      backend.run({ op: 'silu', x: { dtype: 'f32', shape: [4], buffer: x } }, [{ dtype: 'f32', shape: [5] }]),
    ).rejects.toThrow(/do not match/);
    await expect(
      backend.run({ op: 'silu', x: { dtype: 'f32', shape: [8], buffer: x } }, [{ dtype: 'f32', shape: [8] }]),
    ).rejects.toThrow(/needs 32 bytes/);
  });

  it('reports kernel time and handles empty tensors', async () => {
    const backend = await startedBackend();
    expect(await runF32(backend, { op: 'silu', x: f32([0], []) })).toEqual(new Float32Array(0));
    const out = await runF32(backend, { op: 'matmul', a: f32([2, 0], []), b: f32([0, 3], []) });
    expect(out).toEqual(new Float32Array(6));
  });
});
