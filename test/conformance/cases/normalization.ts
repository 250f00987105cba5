// softmax, rmsNorm and rope cases: rank 1 to 3, causal masks with rows <, =, > cols, -inf entries and fully
// masked rows, empty tensors, eps large enough to matter, rope in both pairings at small and large positions.
import { numel, type RopeMode, type Rng } from '@tandem/core';
import type { ConformanceCase, Tolerance } from '../case.ts';
import { hostF32, normalF32, normalValues } from '../host-tensor.ts';

const shapeName = (shape: readonly number[]): string => `[${shape.join(',')}]`;

/** exp in f32 is accurate to a few ulp; denominators of up to 1000 f32 terms add ~N eps relative. */
const SOFTMAX: Tolerance = { abs: 1e-6, rel: 1e-4 };

/** [shape, causal] */
const SOFTMAX_SHAPES: ReadonlyArray<readonly [number[], boolean]> = [
  [[1], false],
  [[7], false],
  [[4, 13], false],
  [[3, 64], false],
  [[2, 3, 65], false],
  [[0, 5], false],
  [[16, 1000], false],
  [[5, 5], true],
  [[3, 8], true],
  [[8, 3], true],
  [[2, 4, 33], true],
  [[32, 512], true],
];

/** Logits with about a quarter of the entries -inf, and row 1 entirely -inf (it must come out as zeros). */
function logitsWithNegInf(rng: Rng, shape: number[]): Float32Array {
  const values = normalValues(rng, numel(shape), 3);
  const cols = shape[shape.length - 1] ?? 1;
  for (let i = 0; i < values.length; i++) {
    if (rng.next() < 0.25 || Math.floor(i / cols) === 1) values[i] = -Infinity;
  }
  return values;
}

function softmaxCase([shape, causal]: readonly [number[], boolean]): ConformanceCase {
  return {
    name: `softmax f32 ${shapeName(shape)}${causal ? ' causal' : ''}`,
    build: (rng) => ({ op: 'softmax', x: normalF32(rng, shape, 3), causal }),
    tolerance: SOFTMAX,
  };
}

function softmaxNegInfCase(shape: number[], causal: boolean): ConformanceCase {
  return {
    name: `softmax f32 ${shapeName(shape)}${causal ? ' causal' : ''} with -inf`,
    build: (rng) => ({ op: 'softmax', x: hostF32(shape, logitsWithNegInf(rng, shape)), causal }),
    tolerance: SOFTMAX,
  };
}

/** Mean squares of N f32 terms and a reciprocal square root: a few ulp plus ~N eps relative. */
const RMS_NORM: Tolerance = { abs: 1e-6, rel: 1e-4 };

/** [shape, with weight, eps] */
const RMS_NORM_SHAPES: ReadonlyArray<readonly [number[], boolean, number]> = [
  [[1], false, 1e-5],
  [[7], true, 1e-5],
  [[4, 13], true, 1e-6],
  [[3, 64], false, 1e-5],
  [[2, 3, 65], true, 1e-5],
  [[5, 8], true, 0.5], // eps comparable to the mean square: a misplaced eps shows
  [[0, 8], true, 1e-5],
  [[32, 1024], true, 1e-5],
];

function rmsNormCase([shape, withWeight, eps]: readonly [number[], boolean, number]): ConformanceCase {
  const n = shape[shape.length - 1] ?? 1;
  return {
    name: `rmsNorm f32 ${shapeName(shape)}${withWeight ? ' weighted' : ''} eps ${eps}`,
    build: (rng) => ({
      op: 'rmsNorm',
      x: normalF32(rng, shape),
      weight: withWeight ? normalF32(rng, [n]) : undefined,
      eps,
    }),
    tolerance: RMS_NORM,
  };
}

/** [shape [seq, heads, headDim], mode, positionOffset, base] */
const ROPE_SHAPES: ReadonlyArray<readonly [number[], RopeMode, number, number]> = [
  [[1, 1, 2], 'interleaved', 0, 10000],
  [[7, 3, 8], 'interleaved', 0, 10000],
  [[7, 3, 8], 'neox', 0, 10000],
  [[5, 2, 64], 'neox', 13, 10000],
  [[16, 6, 48], 'interleaved', 3, 10000],
  [[3, 4, 128], 'neox', 7, 500000],
  [[0, 2, 4], 'interleaved', 0, 10000],
  [[4, 2, 128], 'interleaved', 300, 10000],
  [[4, 2, 128], 'neox', 300, 10000],
];

/**
 * Angles p * base^(-2i/D) in f32 are off by ~p * few ulp, and cos / sin by ~1 ulp: at p < 32 that is < 1e-5
 * rad; at p ~ 300, f32 angles are spaced 3e-5 rad apart and theta's rounding is multiplied by p.
 */
const ropeTolerance = (maxPosition: number): Tolerance =>
  maxPosition < 32 ? { abs: 1e-4, rel: 1e-4 } : { abs: 2e-3, rel: 1e-3 };

function ropeCase([shape, mode, positionOffset, base]: readonly [number[], RopeMode, number, number]): ConformanceCase {
  return {
    name: `rope f32 ${shapeName(shape)} ${mode} offset ${positionOffset} base ${base}`,
    build: (rng) => ({ op: 'rope', x: normalF32(rng, shape), positionOffset, base, mode }),
    tolerance: ropeTolerance(positionOffset + (shape[0] ?? 0)),
  };
}

/** Every softmax, rmsNorm and rope case. */
export const NORMALIZATION_CASES: readonly ConformanceCase[] = [
  ...SOFTMAX_SHAPES.map(softmaxCase),
  softmaxNegInfCase([4, 9], false),
  softmaxNegInfCase([6, 6], true),
  softmaxNegInfCase([2, 3, 40], true),
  ...RMS_NORM_SHAPES.map(rmsNormCase),
  ...ROPE_SHAPES.map(ropeCase),
];
