// dequantize: Q8_0 / Q4_0 blocks -> f32 by kernel (wgsl/dequantize_q8_0.wgsl, dequantize_q4_0.wgsl); f16 reaches
// the planner widened to f32 (f16-storage.ts), so it is a copy.
import { numel } from '@tandem/core';
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { copy, dispatch, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

const DEQUANTIZE_WG = 256;

/** The WebGPU backend's dequantize. */
export const dequantizeKernel: WebGpuKernel<'dequantize'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'dequantize');
    const n = numel(out.shape);
    if (op.x.dtype === 'f16') return [copy(op.x.gpu, out.gpu, n * 4)];
    const kernel = op.x.dtype === 'q8_0' ? WGSL_KERNELS.dequantize_q8_0 : WGSL_KERNELS.dequantize_q4_0;
    return [
      dispatch(
        kernel,
        { blocks: op.x.gpu, out: out.gpu },
        { n },
        { WG: DEQUANTIZE_WG },
        linearGrid(Math.ceil(n / DEQUANTIZE_WG), ctx.limits),
      ),
    ];
  },
};
