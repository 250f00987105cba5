// dequantize: Q8_0 / Q4_0 blocks or f16 bits -> f32 (wasm-kernels/dequantize.ts).
import { numel } from '@tandem/core';
import type { WasmKernel } from '../kernel-support.ts';

/** The wasm backend's dequantize. */
export const dequantizeKernel: WasmKernel<'dequantize'> = {
  run(op, outs, ctx) {
    const k = ctx.kernels;
    const kernel =
      op.x.dtype === 'q4_0' ? k.dequantize_q4_0 : op.x.dtype === 'q8_0' ? k.dequantize_q8_0 : k.dequantize_f16;
    kernel(ctx.pointer(op.x), outs[0] ?? 0, numel(op.x.shape));
  },
};
