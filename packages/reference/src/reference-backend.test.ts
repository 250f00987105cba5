import {
  BackendError,
  backendSupports,
  OP_KINDS,
  type BoundTensor,
  type DeviceBuffer,
  type TensorSpec,
} from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { bytesOf, readF32, readI32 } from './bytes.ts';
import { ReferenceBackend } from './reference-backend.ts';

async function uploadF32(backend: ReferenceBackend, shape: number[], values: number[]): Promise<BoundTensor> {
  const buffer = await backend.upload(bytesOf(Float32Array.from(values)), { dtype: 'f32', shape });
  return { dtype: 'f32', shape, buffer };
}

describe('ReferenceBackend', () => {
  it('describes itself and initialises', async () => {
    const backend = new ReferenceBackend();
    expect(await backend.init()).toEqual({ ok: true });
    expect(backend.describe().name).toBe('reference (TypeScript, float64 accumulation)');
    expect(backend.describe().performance?.flopsPerMs).toBe(1e6);
    expect([backend.name, backend.kind, backend.priority]).toEqual(['reference', 'cpu', 100]);
    expect(backend.health()).toEqual({ state: 'healthy' });
  });

  it('lists every op in its capability table', () => {
    const listed = new ReferenceBackend().capabilities.map((c) => c.op);
    expect([...listed].sort()).toEqual([...OP_KINDS].sort());
  });

  it('upload copies and download returns a copy', async () => {
    const backend = new ReferenceBackend();
    const data = Uint8Array.of(1, 2, 3, 4);
    const buffer = await backend.upload(data, { dtype: 'f32', shape: [1] });
    data[0] = 99;
    const first = await backend.download(buffer);
    expect(Array.from(first)).toEqual([1, 2, 3, 4]);
    first[1] = 99;
    expect(Array.from(await backend.download(buffer))).toEqual([1, 2, 3, 4]);
    expect(buffer).toMatchObject({ backend: 'reference', byteLength: 4 });
  });

  it('runs matmul end to end through the interface', async () => {
    const backend = new ReferenceBackend();
    const a = await uploadF32(backend, [2, 2], [1, 2, 3, 4]);
    const b = await uploadF32(backend, [2, 2], [5, 6, 7, 8]);
    const result = await backend.run({ op: 'matmul', a, b }, [{ dtype: 'f32', shape: [2, 2] }]);
    expect(result.outputs).toHaveLength(1);
    expect(result.kernelMs).toBeGreaterThanOrEqual(0);
    const [out] = result.outputs;
    if (out === undefined) throw new Error('no output');
    expect(Array.from(readF32(await backend.download(out)))).toEqual([19, 22, 43, 50]);
  });

  it('returns both topK outputs (values f32, indices i32)', async () => {
    const backend = new ReferenceBackend();
    const x = await uploadF32(backend, [4], [1, 4, 4, 2]);
    const { outputs } = await backend.run({ op: 'topK', x, k: 2 }, [
      { dtype: 'f32', shape: [1, 2] },
      { dtype: 'i32', shape: [1, 2] },
    ]);
    const [values, indices] = await Promise.all(outputs.map((o) => backend.download(o)));
    expect(Array.from(readF32(values ?? new Uint8Array()))).toEqual([4, 4]);
    expect(Array.from(readI32(indices ?? new Uint8Array()))).toEqual([1, 2]);
  });

  it('rejects a freed buffer, a foreign buffer and a buffer of the wrong size (UNKNOWN_BUFFER, UNKNOWN_BUFFER, BUFFER_MISMATCH)', async () => {
    const backend = new ReferenceBackend();
    const a = await uploadF32(backend, [1, 1], [2]);
    const foreign: DeviceBuffer = { backend: 'other', id: a.buffer.id, byteLength: 4 };
    const short = await uploadF32(backend, [1, 2], [1]);
    backend.free(a.buffer);
    backend.free(a.buffer); // freeing twice does not throw
    const spec: TensorSpec[] = [{ dtype: 'f32', shape: [1, 1] }];
    for (const [bad, code] of [
      [a, 'UNKNOWN_BUFFER'],
      [{ ...a, buffer: foreign }, 'UNKNOWN_BUFFER'],
      [short, 'BUFFER_MISMATCH'],
    ] as const) {
      const run = backend.run({ op: 'matmul', a: bad, b: bad }, spec);
      await expect(run).rejects.toBeInstanceOf(BackendError);
      await expect(run).rejects.toMatchObject({ code, backend: 'reference' });
    }
    await expect(backend.download(a.buffer)).rejects.toMatchObject({ code: 'UNKNOWN_BUFFER' });
  });

  it('wraps invalid ops in a BackendError that keeps the code', async () => {
    const backend = new ReferenceBackend();
    const a = await uploadF32(backend, [1, 2], [1, 2]);
    await expect(backend.run({ op: 'matmul', a, b: a }, [{ dtype: 'f32', shape: [1, 2] }])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      backend: 'reference',
    });
  });

  it('rejects output specs that do not match the op', async () => {
    const backend = new ReferenceBackend();
    const a = await uploadF32(backend, [1, 1], [2]);
    await expect(backend.run({ op: 'matmul', a, b: a }, [{ dtype: 'f32', shape: [2, 2] }])).rejects.toMatchObject({
      code: 'BAD_OUTPUT',
    });
  });

  it('supports every op through the capability table (f16 matmul included)', () => {
    const backend = new ReferenceBackend();
    const f16: TensorSpec = { dtype: 'f16', shape: [2, 2] };
    expect(backendSupports(backend, { op: 'matmul', a: f16, b: f16 })).toEqual({ ok: true });
  });

  it('dispose drops every buffer', async () => {
    const backend = new ReferenceBackend();
    const a = await uploadF32(backend, [1], [1]);
    await backend.dispose();
    await expect(backend.download(a.buffer)).rejects.toBeInstanceOf(BackendError);
  });
});
