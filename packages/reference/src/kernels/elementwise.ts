// Elementwise kernels: add, mul, scale, silu, swiglu. Each value is computed in float64 and rounded once to f32;
// the f16 variants then round that to f16 (still correctly rounded: one add or multiply of f16 values via f32 is).
// add / mul broadcast b over a's leading dimensions: b's shape is a suffix of a's, so b repeats every b.length.
import { decodeF16, encodeF16, InvalidArgumentError } from '@tandem/core';
import { expectLength } from './check.ts';

function broadcast(op: string, a: Float32Array, b: Float32Array, fn: (x: number, y: number) => number): Float32Array {
  const out = new Float32Array(a.length);
  if (a.length === 0) return out;
  if (b.length === 0 || a.length % b.length !== 0) {
    throw new InvalidArgumentError(`${op}.b.length`, b.length, `must divide a.length (${a.length}): b's shape is a suffix of a's`);
  }
  for (let i = 0; i < a.length; i++) out[i] = fn(a[i] ?? 0, b[i % b.length] ?? 0);
  return out;
}

/** a + b, b repeating over a's leading dimensions. */
export function add(a: Float32Array, b: Float32Array): Float32Array {
  return broadcast('add', a, b, (x, y) => x + y);
}

/** a * b, b repeating over a's leading dimensions. */
export function mul(a: Float32Array, b: Float32Array): Float32Array {
  return broadcast('mul', a, b, (x, y) => x * y);
}

/** x * factor. */
export function scale(x: Float32Array, factor: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = (x[i] ?? 0) * factor;
  return out;
}

/** silu(v) = v * sigmoid(v) = v / (1 + e^-v), in float64. */
export function siluValue(v: number): number {
  return v / (1 + Math.exp(-v));
}

/** x * sigmoid(x), elementwise. */
export function silu(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = siluValue(x[i] ?? 0);
  return out;
}

/** silu(gate) * up, elementwise (the Llama MLP gating); gate and up have the same length. */
export function swiglu(gate: Float32Array, up: Float32Array): Float32Array {
  expectLength('swiglu.up', up, gate.length);
  const out = new Float32Array(gate.length);
  for (let i = 0; i < gate.length; i++) out[i] = siluValue(gate[i] ?? 0) * (up[i] ?? 0);
  return out;
}

/** add on binary16 bits: decoded, added in float64, rounded to f16. */
export function addF16(a: Uint16Array, b: Uint16Array): Uint16Array {
  return encodeF16(add(decodeF16(a), decodeF16(b)));
}

/** mul on binary16 bits: decoded, multiplied in float64, rounded to f16. */
export function mulF16(a: Uint16Array, b: Uint16Array): Uint16Array {
  return encodeF16(mul(decodeF16(a), decodeF16(b)));
}

/** scale on binary16 bits: decoded, scaled in float64, rounded to f16. */
export function scaleF16(x: Uint16Array, factor: number): Uint16Array {
  return encodeF16(scale(decodeF16(x), factor));
}
