// matmul cases: f32 and f16, odd and degenerate sizes, sizes straddling tile widths (4/8/16/32/64), large.
import { F16_OUTPUT, f32Dot, type ConformanceCase } from '../case.ts';
import { normalF16, normalF32 } from '../host-tensor.ts';

/** [M, K, N] shapes for f32; K = 3 and 7 are not multiples of 4 (vec4 loads), 0s are empty dims. */
const F32_SIZES: ReadonlyArray<readonly [number, number, number]> = [
  [1, 1, 1],
  [1, 64, 1],
  [2, 3, 4],
  [7, 13, 5],
  [33, 65, 17],
  [4, 8, 16],
  [15, 16, 17],
  [31, 33, 32],
  [63, 64, 65],
  [8, 7, 8],
  [16, 3, 16],
  [1, 256, 128],
  [0, 5, 3],
  [4, 6, 0],
  [3, 0, 4],
  [128, 256, 96],
];

/** [M, K, N] shapes for f16. */
const F16_SIZES: ReadonlyArray<readonly [number, number, number]> = [
  [1, 1, 1],
  [7, 13, 5],
  [16, 16, 16],
  [33, 65, 17],
  [0, 4, 3],
  [64, 128, 32],
];

function f32Case([m, k, n]: readonly [number, number, number]): ConformanceCase {
  return {
    name: `matmul f32 ${m}x${k}x${n}`,
    build: (rng) => ({ op: 'matmul', a: normalF32(rng, [m, k]), b: normalF32(rng, [k, n]) }),
    tolerance: f32Dot(k), // f32 accumulation order differs from the float64 reference
  };
}

function f16Case([m, k, n]: readonly [number, number, number]): ConformanceCase {
  return {
    name: `matmul f16 ${m}x${k}x${n}`,
    build: (rng) => ({ op: 'matmul', a: normalF16(rng, [m, k]), b: normalF16(rng, [k, n]) }),
    // Output rounded to f16; K * 2^-23 * K^0.5 would add nothing visible at these sizes with f32 accumulation.
    tolerance: { abs: F16_OUTPUT.abs + f32Dot(k).abs, rel: F16_OUTPUT.rel },
  };
}

/** Every matmul case. */
export const MATMUL_CASES: readonly ConformanceCase[] = [...F32_SIZES.map(f32Case), ...F16_SIZES.map(f16Case)];
