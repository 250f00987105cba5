import { describe, expect, it } from 'vitest';
import { ranksBefore, topK } from './top_k.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);

describe('topK', () => {
  it('sorts descending; ties by lower index; -Infinity before NaN (k = N)', () => {
    const { values, indices } = topK(f32(3, 1, 3, NaN, -Infinity, 5), 1, 6, 6);
    expect(Array.from(values)).toEqual([5, 3, 3, 1, -Infinity, NaN]);
    expect(Array.from(indices)).toEqual([5, 0, 2, 1, 4, 3]);
  });

  it('works row by row and keeps k', () => {
    const { values, indices } = topK(f32(1, 2, 3, 9, 8, 7), 2, 3, 2);
    expect(Array.from(values)).toEqual([3, 2, 9, 8]);
    expect(Array.from(indices)).toEqual([2, 1, 0, 1]);
  });

  it('ranksBefore is the ordering topK uses', () => {
    expect(ranksBefore(2, 5, 1, 0)).toBe(true);
    expect(ranksBefore(1, 0, 1, 1)).toBe(true);
    expect(ranksBefore(1, 1, 1, 0)).toBe(false);
    expect(ranksBefore(-Infinity, 9, NaN, 0)).toBe(true);
    expect(ranksBefore(NaN, 0, NaN, 1)).toBe(true);
  });
});
