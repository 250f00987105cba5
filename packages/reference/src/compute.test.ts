import { encodeF16, InvalidArgumentError, quantizeQ8_0 } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { bytesOf, readF32, readI32, readU16 } from './bytes.ts';
import { computeReference } from './compute.ts';
import type { HostTensor } from './host-tensor.ts';

const f32 = (shape: number[], ...v: number[]): HostTensor => ({
  dtype: 'f32',
  shape,
  data: bytesOf(Float32Array.from(v)),
});
const first = (outputs: HostTensor[]): HostTensor => {
  const [out] = outputs;
  if (out === undefined) throw new Error('no output');
  return out;
};

describe('computeReference', () => {
  it('returns outputs with the inferred specs', () => {
    const out = first(computeReference({ op: 'matmul', a: f32([1, 2], 1, 2), b: f32([2, 1], 3, 4) }));
    expect(out.dtype).toBe('f32');
    expect(out.shape).toEqual([1, 1]);
    expect(Array.from(readF32(out.data))).toEqual([11]);
  });

  it('keeps f16 in, f16 out for add', () => {
    const a: HostTensor = { dtype: 'f16', shape: [2, 2], data: bytesOf(encodeF16(Float32Array.of(1, 2, 3, 4))) };
    const b: HostTensor = { dtype: 'f16', shape: [2], data: bytesOf(encodeF16(Float32Array.of(0.5, 1))) };
    const out = first(computeReference({ op: 'add', a, b }));
    expect(out.dtype).toBe('f16');
    expect(Array.from(readU16(out.data))).toEqual([0x3e00, 0x4200, 0x4300, 0x4500]); // 1.5, 3, 3.5, 5
  });

  it('dequantizes q8_0 to f32', () => {
    const values = Float32Array.from({ length: 32 }, (_, i) => (i === 31 ? 127 : i - 16)); // amax 127: d = 1, exact
    const out = first(
      computeReference({ op: 'dequantize', x: { dtype: 'q8_0', shape: [32], data: quantizeQ8_0(values) } }),
    );
    expect(out.dtype).toBe('f32');
    expect(Array.from(readF32(out.data))).toEqual(Array.from(values));
  });

  it('treats a 1-D cosine query as one row and a 1-D topK input as one row', () => {
    const sims = first(
      computeReference({ op: 'cosineSimilarity', queries: f32([2], 1, 0), targets: f32([2, 2], 2, 0, 0, 3) }),
    );
    expect(sims.shape).toEqual([1, 2]);
    expect(Array.from(readF32(sims.data))).toEqual([1, 0]);
    const [values, indices] = computeReference({ op: 'topK', x: f32([3], 1, 3, 2), k: 1 });
    expect(values?.shape).toEqual([1, 1]);
    expect(Array.from(readI32(indices?.data ?? new Uint8Array()))).toEqual([1]);
  });

  it('uses the second-to-last dimension as the causal row count', () => {
    // [2 batches, 2 rows, 2 cols]: row 0 keeps column 0 only
    const out = first(computeReference({ op: 'softmax', x: f32([2, 2, 2], 0, 0, 0, 0, 0, 0, 0, 0), causal: true }));
    expect(Array.from(readF32(out.data))).toEqual([1, 0, 0.5, 0.5, 1, 0, 0.5, 0.5]);
  });

  it('reads inputs at unaligned byte offsets', () => {
    const raw = new Uint8Array(9);
    raw.set(bytesOf(Float32Array.of(2, 3)), 1);
    const out = first(
      computeReference({ op: 'scale', x: { dtype: 'f32', shape: [2], data: raw.subarray(1) }, factor: 2 }),
    );
    expect(Array.from(readF32(out.data))).toEqual([4, 6]);
  });

  it('rejects invalid ops and byte lengths that do not match the shape', () => {
    expect(() => computeReference({ op: 'matmul', a: f32([1, 2], 1, 2), b: f32([1, 2], 1, 2) })).toThrow(
      InvalidArgumentError,
    );
    expect(() => computeReference({ op: 'silu', x: f32([3], 1, 2) })).toThrow(
      /silu\.x\.data\.byteLength = 8: must be 12/,
    );
  });
});
