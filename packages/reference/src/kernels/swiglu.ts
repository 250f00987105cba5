// swiglu: silu(gate) * up elementwise (the Llama MLP's gating), in float64, rounded once to f32.
import { bytesOf } from '../bytes.ts';
import { expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { siluValue } from './silu.ts';

/** silu(gate) * up, elementwise (the Llama MLP gating); gate and up have the same length. */
export function swiglu(gate: Float32Array, up: Float32Array): Float32Array {
  expectLength('swiglu.up', up, gate.length);
  const out = new Float32Array(gate.length);
  for (let i = 0; i < gate.length; i++) out[i] = siluValue(gate[i] ?? 0) * (up[i] ?? 0);
  return out;
}

/** The reference's swiglu. */
export const swigluKernel: ReferenceKernel<'swiglu'> = {
  run: (op) => [bytesOf(swiglu(f32(op.gate, 'swiglu.gate'), f32(op.up, 'swiglu.up')))],
};
