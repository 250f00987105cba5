// quantizedMatmul and dequantize cases: Q8_0 / Q4_0 weights made by ggml's quantizers from random floats;
// the decode shape (M = 1), small batches around the 8-row panel threshold, empty dims, larger batches.
import type { QuantizedDType } from '@tandem/core';
import { EXACT, f32Dot, type ConformanceCase } from '../case.ts';
import { hostF16, normalF16, normalF32, normalQuantized } from '../host-tensor.ts';

const QUANTIZED: readonly QuantizedDType[] = ['q8_0', 'q4_0'];

/** [M, K, N]: x [M, K] f32, w [N, K] quantized; K is a multiple of 32. */
const MATMUL_SIZES: ReadonlyArray<readonly [number, number, number]> = [
  [1, 32, 1],
  [1, 256, 96],
  [7, 64, 13],
  [8, 128, 33],
  [9, 96, 5],
  [33, 96, 17],
  [0, 64, 4],
  [3, 64, 0],
  [16, 512, 64],
  [1, 11008, 8], // the decode shape of a 7B down projection: the streamed Q4_0 mat-vec past 48 KiB of shared memory
];

function matmulCase(dtype: QuantizedDType, [m, k, n]: readonly [number, number, number]): ConformanceCase {
  return {
    name: `quantizedMatmul ${dtype} ${m}x${k}x${n}`,
    build: (rng) => ({ op: 'quantizedMatmul', x: normalF32(rng, [m, k]), w: normalQuantized(rng, dtype, [n, k]) }),
    tolerance: f32Dot(k), // weights expand exactly; only the f32 accumulation order differs
  };
}

/** Shapes for dequantize of quantized tensors (element counts multiples of 32). */
const DEQUANTIZE_SHAPES: readonly number[][] = [[32], [4, 64], [3, 1, 96], [0, 32], [64, 256]];

/** Shapes for dequantize of f16 tensors. */
const F16_SHAPES: readonly number[][] = [[1], [7, 13], [3, 1, 5], [0], [1000], []];

function dequantizeCase(dtype: QuantizedDType, shape: number[]): ConformanceCase {
  return {
    name: `dequantize ${dtype} [${shape.join(',')}]`,
    build: (rng) => ({ op: 'dequantize', x: normalQuantized(rng, dtype, shape, 2) }),
    tolerance: EXACT, // q * d is exact in f32
  };
}

function dequantizeF16Case(shape: number[]): ConformanceCase {
  return {
    name: `dequantize f16 [${shape.join(',')}]`,
    build: (rng) => ({ op: 'dequantize', x: normalF16(rng, shape, 100) }),
    tolerance: EXACT, // every f16 is an f32
  };
}

/** f16 specials: zeros of both signs, infinities, NaN, the largest finite value, subnormals. */
const F16_SPECIALS = Float32Array.of(
  0,
  -0,
  Infinity,
  -Infinity,
  NaN,
  65504,
  -65504,
  2 ** -24,
  -(2 ** -24),
  1023 * 2 ** -24,
  2 ** -14,
  1 / 3,
);

const dequantizeF16Specials: ConformanceCase = {
  name: 'dequantize f16 specials',
  build: () => ({ op: 'dequantize', x: hostF16([F16_SPECIALS.length], F16_SPECIALS) }),
  tolerance: { abs: 2 ** -14, rel: 0 }, // exact, except that a GPU may flush f16 subnormals (< 2^-14) to zero
};

/** Every quantizedMatmul and dequantize case. */
export const QUANTIZED_CASES: readonly ConformanceCase[] = [
  ...QUANTIZED.flatMap((dtype) => MATMUL_SIZES.map((size) => matmulCase(dtype, size))),
  ...QUANTIZED.flatMap((dtype) => DEQUANTIZE_SHAPES.map((shape) => dequantizeCase(dtype, shape))),
  ...F16_SHAPES.map(dequantizeF16Case),
  dequantizeF16Specials,
];
