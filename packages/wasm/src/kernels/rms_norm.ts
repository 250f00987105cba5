// rmsNorm over the last dimension (wasm-kernels/rms_norm.ts); pointer 0 means no weight.
import { numel } from '@tandem/core';
import { lastDim, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's rmsNorm. */
export const rmsNormKernel: WasmKernel<'rmsNorm'> = {
  run(op, outs, ctx) {
    const n = lastDim(op.x);
    const weight = op.weight === undefined ? 0 : ctx.pointer(op.weight);
    ctx.kernels.rms_norm_f32(ctx.pointer(op.x), weight, outs[0] ?? 0, numel(op.x.shape) / n, n, op.eps);
  },
};
