// rmsNorm: wgsl/rms_norm.wgsl over the last dimension, one workgroup per row; without a weight the kernel ignores
// its weight binding (bound to x).
import { numel } from '@tandem/core';
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';
import { ROW_WG } from './softmax.ts';

/** The WebGPU backend's rmsNorm. */
export const rmsNormKernel: WebGpuKernel<'rmsNorm'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'rmsNorm');
    const shape = op.x.shape;
    const n = shape[shape.length - 1] ?? 1;
    const rows = n === 0 ? 0 : numel(shape) / n;
    const weight = op.weight?.gpu ?? op.x.gpu;
    const params = { rows, n, eps: op.eps, has_weight: op.weight === undefined ? 0 : 1 };
    return [
      dispatch(
        WGSL_KERNELS.rms_norm,
        { x: op.x.gpu, weight, out: out.gpu },
        params,
        { WG: ROW_WG },
        linearGrid(rows, ctx.limits),
      ),
    ];
  },
};
