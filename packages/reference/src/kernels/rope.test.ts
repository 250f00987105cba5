import { describe, expect, it } from 'vitest';
import { rope, type RopeParams } from './rope.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};
const params = (p: Partial<RopeParams>): RopeParams => ({
  seq: 1,
  heads: 1,
  headDim: 2,
  positionOffset: 0,
  base: 10000,
  mode: 'interleaved',
  ...p,
});

// cos 1 = 0.5403023059, sin 1 = 0.8414709848, cos 0.1 = 0.9950041653, sin 0.1 = 0.0998334166
describe('rope', () => {
  it('leaves position 0 alone and turns position p by p radians in the first pair', () => {
    closeTo(rope(f32(1, 0, 1, 0), params({ seq: 2 })), [1, 0, 0.5403023059, 0.8414709848]);
    closeTo(rope(f32(1, 0), params({ positionOffset: 1 })), [0.5403023059, 0.8414709848]);
  });

  it('interleaved mode rotates (0, 1) by 1 rad and (2, 3) by 0.1 rad (base 100, D = 4, p = 1)', () => {
    // (1, 2) -> (c1 - 2 s1, s1 + 2 c1); (3, 4) -> (3 c - 4 s, 3 s + 4 c) with the 0.1 rad pair
    closeTo(
      rope(f32(1, 2, 3, 4), params({ headDim: 4, base: 100, positionOffset: 1 })),
      [-1.1426396637, 1.9220756024, 2.5856788293, 4.279516908],
    );
  });

  it('neox mode rotates (0, 2) by 1 rad and (1, 3) by 0.1 rad', () => {
    // (1, 3) -> (c1 - 3 s1, s1 + 3 c1); (2, 4) -> (2 c - 4 s, 2 s + 4 c)
    closeTo(
      rope(f32(1, 2, 3, 4), params({ headDim: 4, base: 100, positionOffset: 1, mode: 'neox' })),
      [-1.9841106485, 1.5906746643, 2.4623779025, 4.1796834946],
    );
  });

  it('rotates every head of a token by the same angles', () => {
    closeTo(
      rope(f32(1, 0, 0, 1), params({ heads: 2, positionOffset: 1 })),
      [0.5403023059, 0.8414709848, -0.8414709848, 0.5403023059],
    );
  });
});
