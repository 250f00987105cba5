// swiglu on f32: silu(gate) * up, the Llama MLP's gating.
import { gatedSilu } from './silu';

/** out[i] = silu(gate[i]) * up[i]. */
export function swiglu_f32(gate: usize, up: usize, out: usize, n: i32): void {
  gatedSilu(gate, up, out, n);
}
