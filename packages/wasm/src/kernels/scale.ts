// scale: x * factor (wasm-kernels/scale.ts); f16 through f32.
import { numel } from '@tandem/core';
import { asF32, f32Target, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's scale. */
export const scaleKernel: WasmKernel<'scale'> = {
  run(op, outs, ctx) {
    const n = numel(op.x.shape);
    const target = f32Target(ctx, op.x.dtype, outs[0] ?? 0, n);
    ctx.kernels.scale_f32(asF32(ctx, op.x, 'x'), target.at, n, op.factor);
    target.finish();
  },
};
