// softmax over the last dimension, optionally causal (wasm-kernels/softmax.ts).
import { numel } from '@tandem/core';
import { dim, lastDim, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's softmax. */
export const softmaxKernel: WasmKernel<'softmax'> = {
  run(op, outs, ctx) {
    const cols = lastDim(op.x);
    const rows = op.x.shape.length >= 2 ? dim(op.x, -2) : 1;
    ctx.kernels.softmax_f32(ctx.pointer(op.x), outs[0] ?? 0, numel(op.x.shape) / cols, rows, cols, op.causal ? 1 : 0);
  },
};
