import { describe, expect, it } from 'vitest';
import { rmsNorm } from './rms_norm.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};

describe('rmsNorm', () => {
  it('divides by the root mean square', () => {
    // [3, 4]: mean square 12.5, rms 3.5355339 -> [0.8485281, 1.1313708]
    closeTo(rmsNorm(f32(3, 4), 2, undefined, 0), [0.8485281374, 1.1313708499]);
  });

  it('adds eps to the mean square and applies the weight per channel, row by row', () => {
    // [1, 1] with eps 3: 1 / sqrt(1 + 3) = 0.5; weight [2, -1]. Second row [2, 2]: 2 / sqrt(4 + 3).
    const s = 2 / Math.sqrt(7);
    closeTo(rmsNorm(f32(1, 1, 2, 2), 2, f32(2, -1), 3), [1, -0.5, 2 * s, -s]);
  });

  it('handles an empty last dimension', () => {
    expect(rmsNorm(f32(), 0, undefined, 1e-5).length).toBe(0);
  });
});
