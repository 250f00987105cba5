import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { add, addF16 } from './add.ts';
import { mul, mulF16 } from './mul.ts';
import { scale, scaleF16 } from './scale.ts';
import { silu } from './silu.ts';
import { swiglu } from './swiglu.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};

describe('add / mul', () => {
  const a = f32(1, 2, 3, 4, 5, 6); // [2, 3]

  it('broadcast b [3] over a [2, 3]', () => {
    expect(Array.from(add(a, f32(10, 20, 30)))).toEqual([11, 22, 33, 14, 25, 36]);
    expect(Array.from(mul(a, f32(10, 20, 30)))).toEqual([10, 40, 90, 40, 100, 180]);
  });

  it('work elementwise on equal shapes and on empty tensors', () => {
    expect(Array.from(add(f32(1, 2), f32(0.5, -2)))).toEqual([1.5, 0]);
    expect(Array.from(mul(f32(1, 2), f32(0.5, -2)))).toEqual([0.5, -4]);
    expect(add(f32(), f32()).length).toBe(0);
  });

  it('reject a b that is not a suffix-sized repeat of a', () => {
    expect(() => add(a, f32(1, 2, 3, 4))).toThrow(InvalidArgumentError);
  });
});

describe('scale / silu / swiglu', () => {
  it('scale multiplies by the factor', () => {
    expect(Array.from(scale(f32(1, -2, 0.5), 2.5))).toEqual([2.5, -5, 1.25]);
  });

  it('silu(x) = x / (1 + e^-x)', () => {
    // silu(1) = 1 / (1 + 1/e) = 0.7310585786; silu(-1) = -1 / (1 + e) = -0.2689414214
    closeTo(silu(f32(0, 1, -1, 20)), [0, 0.7310585786, -0.2689414214, 19.999999958776]);
  });

  it('swiglu = silu(gate) * up', () => {
    closeTo(swiglu(f32(1, 0, -1), f32(2, 5, 3)), [1.4621171573, 0, -0.8068242642]);
  });
});

describe('f16 variants', () => {
  it('addF16 rounds ties to even', () => {
    // 1 + 2^-11 is a tie -> 1 (0x3c00); (1 + 2^-10) + 2^-11 is a tie -> 1 + 2^-9 (0x3c02). 2^-11 = 0x1000.
    expect(Array.from(addF16(Uint16Array.of(0x3c00, 0x3c01), Uint16Array.of(0x1000, 0x1000)))).toEqual([
      0x3c00, 0x3c02,
    ]);
  });

  it('mulF16 and scaleF16 multiply, and overflow to infinity', () => {
    expect(Array.from(mulF16(Uint16Array.of(0x4200), Uint16Array.of(0x3800)))).toEqual([0x3e00]); // 3 * 0.5 = 1.5
    expect(Array.from(scaleF16(Uint16Array.of(0x4000, 0x7bff), 0.25))).toEqual([0x3800, 0x73ff]); // 2 / 4, 65504 / 4
    expect(Array.from(scaleF16(Uint16Array.of(0x7bff), 2))).toEqual([0x7c00]); // 131008 overflows
  });
});
