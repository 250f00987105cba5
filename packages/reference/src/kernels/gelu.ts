// gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed as x / (1 + e^(-2u)) with
// u = sqrt(2/pi) (x + 0.044715 x^3) (the same value: 0.5 (1 + tanh(u)) = sigmoid(2u)), which keeps its tiny
// negative tail instead of cancelling 1 + tanh(u) to 0. In float64, rounded once to f32 (or to f16).
import { mapValues, unaryKernel } from '../kernel-support.ts';

/** sqrt(2 / pi). */
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** gelu(v), tanh approximation, in float64. */
export function geluValue(v: number): number {
  const u = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v);
  return v / (1 + Math.exp(-2 * u));
}

/** gelu of every value. */
export function gelu(x: Float32Array): Float32Array {
  return mapValues(x, geluValue);
}

/** The reference's gelu (f32, and f16 through it). */
export const geluKernel = unaryKernel('gelu', geluValue);
