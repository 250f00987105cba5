// swiglu: silu(gate) * up (wasm-kernels/swiglu.ts).
import { numel } from '@tandem/core';
import type { WasmKernel } from '../kernel-support.ts';

/** The wasm backend's swiglu. */
export const swigluKernel: WasmKernel<'swiglu'> = {
  run(op, outs, ctx) {
    ctx.kernels.swiglu_f32(ctx.pointer(op.gate), ctx.pointer(op.up), outs[0] ?? 0, numel(op.gate.shape));
  },
};
