import { describe, expect, it } from 'vitest';
import { softmax } from './softmax.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};

describe('softmax', () => {
  it('normalises each row', () => {
    // e^0 : e^ln3 = 1 : 3; a constant row is uniform
    closeTo(softmax(f32(0, Math.log(3), 1, 1, 1, 1), 1, 2, false).subarray(0, 2), [0.25, 0.75]);
    closeTo(softmax(f32(1, 1, 1, 1), 1, 4, false), [0.25, 0.25, 0.25, 0.25]);
  });

  it('is stable for large logits', () => {
    closeTo(softmax(f32(1000, 1000), 1, 2, false), [0.5, 0.5]);
  });

  it('gives -inf entries zero weight and all -inf rows zeros', () => {
    closeTo(softmax(f32(0, -Infinity, 0, -Infinity, -Infinity, -Infinity), 1, 3, false), [0.5, 0, 0.5, 0, 0, 0]);
  });

  it('causal with rows = 2, cols = 3: row r keeps c <= r + 1', () => {
    closeTo(softmax(new Float32Array(6), 2, 3, true), [0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3]);
  });

  it('causal with rows = 3, cols = 2: row 0 sees nothing (zeros), row 1 sees column 0', () => {
    closeTo(softmax(new Float32Array(6), 3, 2, true), [0, 0, 1, 0, 0.5, 0.5]);
  });

  it('applies the causal mask to each matrix of a batch', () => {
    closeTo(softmax(new Float32Array(8), 2, 2, true), [1, 0, 0.5, 0.5, 1, 0, 0.5, 0.5]);
  });

  it('handles empty rows and empty batches', () => {
    expect(softmax(f32(), 0, 4, false).length).toBe(0);
    expect(softmax(f32(), 3, 0, true).length).toBe(0);
  });
});
