import { describe, expect, it } from 'vitest';
import { cosineSimilarity } from './cosine-similarity.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, 6));
};

describe('cosineSimilarity', () => {
  const targets = f32(1, 0, 0, 1, -2, 0, 1, 1, 0, 0);

  it('scores parallel 1, orthogonal 0, opposite -1, 45 degrees 1/sqrt(2), a zero target 0', () => {
    closeTo(cosineSimilarity(f32(3, 0), targets, 1, 5, 2), [1, 0, -1, Math.SQRT1_2, 0]);
  });

  it('scores a zero query 0 against everything, row by row', () => {
    closeTo(cosineSimilarity(f32(0, 0, 0, 5), targets, 2, 5, 2), [0, 0, 0, 0, 0, 0, 1, 0, Math.SQRT1_2, 0]);
  });

  it('handles zero targets and zero queries', () => {
    expect(cosineSimilarity(f32(1, 2), f32(), 1, 0, 2).length).toBe(0);
    expect(cosineSimilarity(f32(), targets, 0, 5, 2).length).toBe(0);
  });
});
