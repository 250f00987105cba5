import { describe, expect, it } from 'vitest';
import { cosineSimilarity } from './cosine_similarity.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};

describe('cosineSimilarity', () => {
  const targets = f32(1, 0, 0, 1, -2, 0, 1, 1, 0, 0);

  it('scores parallel 1, orthogonal 0, opposite -1, 45 degrees 1/sqrt(2), a zero target 0', () => {
    closeTo(cosineSimilarity(f32(3, 0), targets, 1, 5, 2), [1, 0, -1, Math.SQRT1_2, 0]);
  });

  it('scores a zero query 0 against everything, row by row', () => {
    closeTo(cosineSimilarity(f32(0, 0, 0, 5), targets, 2, 5, 2), [0, 0, 0, 0, 0, 0, 1, 0, Math.SQRT1_2, 0]);
  });

  it('follows the special-value rules: NaN wins, then a zero vector scores 0, then an infinity gives NaN', () => {
    const rows = f32(Number.NaN, 1, 0, -0, Infinity, 1, 1, 1);
    const got = Array.from(cosineSimilarity(rows, rows, 4, 4, 2));
    const nan = Number.NaN;
    expect(got).toEqual([nan, nan, nan, nan, nan, 0, 0, 0, nan, 0, nan, nan, nan, 0, nan, expect.closeTo(1, 6)]);
  });

  it("does not depend on the vectors' lengths: 1e-30, 1e-45 and 3e38 entries score as unit ones", () => {
    for (const factor of [1e-30, 1e-45, 3e38]) {
      closeTo(cosineSimilarity(f32(factor, factor), f32(1, 1, 1, -1), 1, 2, 2), [1, 0]);
    }
  });

  it('handles zero targets and zero queries', () => {
    expect(cosineSimilarity(f32(1, 2), f32(), 1, 0, 2).length).toBe(0);
    expect(cosineSimilarity(f32(), targets, 0, 5, 2).length).toBe(0);
  });
});
