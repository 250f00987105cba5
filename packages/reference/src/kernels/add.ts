// add: a + b elementwise, b repeating over a's leading dimensions; each sum in float64, rounded once to f32 (f16:
// decoded, added, rounded to f16: still correctly rounded, as one add of f16 values via f32 is).
import { decodeF16, encodeF16 } from '@tandem/core';
import { binaryKernel, broadcast } from '../kernel-support.ts';

/** a + b, b repeating over a's leading dimensions. */
export function add(a: Float32Array, b: Float32Array): Float32Array {
  return broadcast('add', a, b, (x, y) => x + y);
}

/** add on binary16 bits: decoded, added in float64, rounded to f16. */
export function addF16(a: Uint16Array, b: Uint16Array): Uint16Array {
  return encodeF16(add(decodeF16(a), decodeF16(b)));
}

/** The reference's add. */
export const addKernel = binaryKernel('add', add, addF16);
