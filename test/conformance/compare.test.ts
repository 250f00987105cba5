import type { Op } from '@tandem/core';
import type { HostTensor } from '@tandem/reference';
import { describe, expect, it } from 'vitest';
import { compareOutputs, compareTopKIndices, compareValues, withinTolerance } from './compare.ts';
import { hostF32 } from './host-tensor.ts';

const tol = { abs: 1e-6, rel: 1e-4 };

describe('withinTolerance', () => {
  it('treats NaN as equal only to NaN, and infinities as equal only to the same sign', () => {
    expect(withinTolerance(NaN, NaN, tol)).toBe(true);
    expect(withinTolerance(NaN, 1, tol)).toBe(false);
    expect(withinTolerance(1, NaN, tol)).toBe(false);
    expect(withinTolerance(Infinity, Infinity, tol)).toBe(true);
    expect(withinTolerance(-Infinity, Infinity, tol)).toBe(false);
    expect(withinTolerance(1e30, Infinity, { abs: Infinity, rel: 0 })).toBe(false);
  });

  it('allows abs + rel * |want|', () => {
    expect(withinTolerance(100.01, 100, tol)).toBe(true); // 0.01 <= 1e-6 + 1e-2
    expect(withinTolerance(100.02, 100, tol)).toBe(false);
    expect(withinTolerance(0, -0, { abs: 0, rel: 0 })).toBe(true);
  });
});

describe('compareValues', () => {
  it('catches a wrong value and names its index, got and want', () => {
    const result = compareValues([1, 2, 3.5], [1, 2, 3], tol);
    expect(result.ok).toBe(false);
    expect(result.mismatches).toEqual([{ index: 2, got: 3.5, want: 3 }]);
    expect(result.message).toContain('[2] got 3.5 want 3');
  });

  it('catches a NaN where a number is expected, and a length mismatch', () => {
    expect(compareValues([NaN], [0], tol).ok).toBe(false);
    expect(compareValues([1], [1, 2], tol).message).toContain('got 1 elements, want 2');
  });

  it('passes equal arrays with NaNs and infinities in the same places', () => {
    expect(compareValues([NaN, -Infinity, 1], [NaN, -Infinity, 1 + 1e-7], tol)).toMatchObject({
      ok: true,
      message: '',
    });
  });
});

describe('compareTopKIndices', () => {
  // one row [5, 7, 7, 1], k = 3: values [7, 7, 5], indices [1, 2, 0]
  const input = { x: [5, 7, 7, 1], n: 4, k: 3 };

  it('accepts indices swapped between tied values', () => {
    expect(compareTopKIndices([2, 1, 0], [1, 2, 0], input, { abs: 0, rel: 0 }).ok).toBe(true);
  });

  it('rejects a swap between values that do not tie', () => {
    const result = compareTopKIndices([1, 0, 2], [1, 2, 0], input, { abs: 0, rel: 0 });
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toEqual({ index: 1, got: 0, want: 2 });
  });

  it('rejects a repeated index even when its value ties, and an index out of range', () => {
    expect(compareTopKIndices([1, 1, 0], [1, 2, 0], input, { abs: 0, rel: 0 }).ok).toBe(false);
    expect(compareTopKIndices([1, 2, 4], [1, 2, 0], input, { abs: 0, rel: 0 }).ok).toBe(false);
  });
});

describe('compareOutputs', () => {
  const x = hostF32([4], Float32Array.of(5, 7, 7, 1));
  const values = hostF32([1, 2], Float32Array.of(7, 7));
  const indices = (a: number, b: number): HostTensor => ({
    dtype: 'i32',
    shape: [1, 2],
    data: new Uint8Array(Int32Array.of(a, b).buffer),
  });

  it('applies the tie rule to topK indices and exact equality elsewhere', () => {
    const op: Op<HostTensor> = { op: 'topK', x, k: 2 };
    expect(compareOutputs(op, [values, indices(2, 1)], [values, indices(1, 2)], { abs: 0, rel: 0 }).ok).toBe(true);
    expect(compareOutputs(op, [values, indices(1, 0)], [values, indices(1, 2)], { abs: 0, rel: 0 }).ok).toBe(false);
  });

  it('reports a shape or dtype mismatch and a missing output', () => {
    const op: Op<HostTensor> = { op: 'silu', x };
    const other = hostF32([2, 2], Float32Array.of(5, 7, 7, 1));
    expect(compareOutputs(op, [other], [x], tol).message).toContain('got f32 [2, 2]');
    expect(compareOutputs(op, [], [x], tol).message).toContain('got 0 outputs, want 1');
  });
});
