// What a conformance case is, and the tolerances cases choose from. Cases are data: a name, a builder of the op
// from a seeded RNG, and how far a backend may be from the float64 reference.
import { createRng, type Op, type Rng } from '@tandem/core';
import type { HostTensor } from './host-tensor.ts';

/** How close a backend's output must be: |got - want| <= abs + rel * |want|. */
export interface Tolerance {
  /** Absolute slack. */
  readonly abs: number;
  /** Slack relative to the reference value. */
  readonly rel: number;
}

/** One conformance case. */
export interface ConformanceCase {
  /** Unique name; also seeds the case's RNG, so inputs are the same on every run. */
  readonly name: string;
  /** Builds the op and its inputs. */
  build(rng: Rng): Op<HostTensor>;
  /** Allowed distance from the reference's outputs. */
  readonly tolerance: Tolerance;
}

/** f32 machine epsilon (spacing of f32 values at 1). */
export const EPS32 = 2 ** -23;

/** Results are exact in f32 (copies, dequantized values, selected elements): bit-for-bit, NaN equals NaN. */
export const EXACT: Tolerance = { abs: 0, rel: 0 };

/** One correctly rounded f32 operation: 1 ulp of slack; abs covers subnormals a GPU may flush to zero. */
export const ONE_F32_ROUNDING: Tolerance = { abs: 1e-37, rel: EPS32 };

/** An output rounded to f16 (ulp <= 2^-10 relative): two ulps, since f32 vs f64 sums may round either way. */
export const F16_OUTPUT: Tolerance = { abs: 1e-6, rel: 2 * 2 ** -10 };

/**
 * A dot product of length k of unit-scale values accumulated in f32: each of k additions rounds by up to
 * eps/2 of a partial sum of size ~sqrt(k), so k * sqrt(k) * eps bounds the order-dependent error with 2x margin.
 */
export function f32Dot(k: number): Tolerance {
  return { abs: 1e-6 + k * Math.sqrt(k) * EPS32, rel: 4 * EPS32 };
}

/** A case's RNG, seeded from its name (FNV-1a), so its inputs never depend on which cases ran before. */
export function caseRng(name: string): Rng {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return createRng(hash);
}
