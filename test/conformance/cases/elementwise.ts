// Elementwise cases: add / mul (same shape, broadcast over leading dims, scalars, empty), scale, silu, swiglu.
import type { DType } from '@tandem/core';
import { EPS32, F16_OUTPUT, ONE_F32_ROUNDING, type ConformanceCase, type Tolerance } from '../case.ts';
import { normalF16, normalF32 } from '../host-tensor.ts';

/** [a.shape, b.shape] pairs; b is a.shape or a suffix of it. */
const BINARY_SHAPES: ReadonlyArray<readonly [number[], number[]]> = [
  [
    [7, 13],
    [7, 13],
  ],
  [[4, 5, 6], [6]],
  [
    [4, 5, 6],
    [5, 6],
  ],
  [[33, 65], [65]],
  [[1], [1]],
  [[], []],
  [[0, 5], [5]],
  [[3, 0], [0]],
  [[128, 1000], [1000]],
];

/** Shapes for the f16 variants. */
const F16_BINARY_SHAPES: ReadonlyArray<readonly [number[], number[]]> = [
  [[7, 13], [13]],
  [[1], [1]],
  [
    [64, 33],
    [64, 33],
  ],
  [[0, 4], [4]],
];

const BINARY_OPS: ReadonlyArray<'add' | 'mul'> = ['add', 'mul'];

const shapeName = (shape: readonly number[]): string => `[${shape.join(',')}]`;

/** One f32 add or multiply is correctly rounded on every backend; f16 outputs are correctly rounded too. */
const toleranceFor = (dtype: DType): Tolerance => (dtype === 'f16' ? F16_OUTPUT : ONE_F32_ROUNDING);

function binaryCase(
  op: 'add' | 'mul',
  dtype: 'f32' | 'f16',
  [aShape, bShape]: readonly [number[], number[]],
): ConformanceCase {
  const normal = dtype === 'f16' ? normalF16 : normalF32;
  return {
    name: `${op} ${dtype} ${shapeName(aShape)} ${shapeName(bShape)}`,
    build: (rng) => ({ op, a: normal(rng, aShape), b: normal(rng, bShape) }),
    tolerance: toleranceFor(dtype),
  };
}

/** [shape, factor]: 1/3 and 0.1 are not representable, so backends may round the factor to f32 first. */
const SCALE_SHAPES: ReadonlyArray<readonly [number[], number]> = [
  [[7, 13], 0.125],
  [[1], -3],
  [[1000], 1 / 3],
  [[2, 3, 5], 0.1],
  [[0], 2],
  [[], 4],
];

function scaleCase(dtype: 'f32' | 'f16', [shape, factor]: readonly [number[], number]): ConformanceCase {
  const normal = dtype === 'f16' ? normalF16 : normalF32;
  return {
    name: `scale ${dtype} ${shapeName(shape)} x${factor.toPrecision(3)}`,
    build: (rng) => ({ op: 'scale', x: normal(rng, shape), factor }),
    // The float64 factor vs. its f32 rounding adds one more ulp to the single product's rounding.
    tolerance: dtype === 'f16' ? F16_OUTPUT : { abs: ONE_F32_ROUNDING.abs, rel: 2 * EPS32 },
  };
}

/** exp in f32 is accurate to a few ulp for the |x| < 20 these inputs reach. */
const TRANSCENDENTAL: Tolerance = { abs: 1e-6, rel: 1e-5 };

const UNARY_SHAPES: readonly number[][] = [[1], [7, 13], [33, 65], [1000], [0], [0, 3]];

function siluCase(shape: number[]): ConformanceCase {
  return {
    name: `silu f32 ${shapeName(shape)}`,
    build: (rng) => ({ op: 'silu', x: normalF32(rng, shape, 4) }), // std 4 reaches both saturated tails
    tolerance: TRANSCENDENTAL,
  };
}

function swigluCase(shape: number[]): ConformanceCase {
  return {
    name: `swiglu f32 ${shapeName(shape)}`,
    build: (rng) => ({ op: 'swiglu', gate: normalF32(rng, shape, 3), up: normalF32(rng, shape) }),
    tolerance: TRANSCENDENTAL,
  };
}

/** GELU's tanh approximation: f32 within the transcendental tolerance; f16 results are rounded to f16. */
function geluCase(dtype: 'f32' | 'f16', shape: number[]): ConformanceCase {
  const normal = dtype === 'f16' ? normalF16 : normalF32;
  return {
    name: `gelu ${dtype} ${shapeName(shape)}`,
    build: (rng) => ({ op: 'gelu', x: normal(rng, shape, 4) }), // std 4 reaches both tails
    tolerance: dtype === 'f16' ? F16_OUTPUT : TRANSCENDENTAL,
  };
}

/** Every elementwise case. */
export const ELEMENTWISE_CASES: readonly ConformanceCase[] = [
  ...BINARY_OPS.flatMap((op) => [
    ...BINARY_SHAPES.map((shapes) => binaryCase(op, 'f32', shapes)),
    ...F16_BINARY_SHAPES.map((shapes) => binaryCase(op, 'f16', shapes)),
  ]),
  ...SCALE_SHAPES.map((s) => scaleCase('f32', s)),
  ...SCALE_SHAPES.map((s) => scaleCase('f16', s)),
  ...UNARY_SHAPES.map(siluCase),
  ...UNARY_SHAPES.map(swigluCase),
  ...UNARY_SHAPES.map((shape) => geluCase('f32', shape)),
  ...UNARY_SHAPES.map((shape) => geluCase('f16', shape)),
];
