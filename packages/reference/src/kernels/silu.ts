// silu: x * sigmoid(x) = x / (1 + e^-x) elementwise, in float64, rounded once to f32.
import { mapValues, unaryKernel } from '../kernel-support.ts';

/** silu(v) = v * sigmoid(v) = v / (1 + e^-v), in float64. */
export function siluValue(v: number): number {
  return v / (1 + Math.exp(-v));
}

/** x * sigmoid(x), elementwise. */
export function silu(x: Float32Array): Float32Array {
  return mapValues(x, siluValue);
}

/** The reference's silu. */
export const siluKernel = unaryKernel('silu', siluValue);
