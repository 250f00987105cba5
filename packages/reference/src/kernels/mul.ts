// mul: a * b elementwise, b repeating over a's leading dimensions; each product in float64, rounded once to f32
// (f16: decoded, multiplied, rounded to f16).
import { decodeF16, encodeF16 } from '@tandem/core';
import { binaryKernel, broadcast } from '../kernel-support.ts';

/** a * b, b repeating over a's leading dimensions. */
export function mul(a: Float32Array, b: Float32Array): Float32Array {
  return broadcast('mul', a, b, (x, y) => x * y);
}

/** mul on binary16 bits: decoded, multiplied in float64, rounded to f16. */
export function mulF16(a: Uint16Array, b: Uint16Array): Uint16Array {
  return encodeF16(mul(decodeF16(a), decodeF16(b)));
}

/** The reference's mul. */
export const mulKernel = binaryKernel('mul', mul, mulF16);
