// softmax: wgsl/softmax.wgsl, row-wise over the last dimension (one workgroup per row), optionally causal.
import { numel } from '@tandem/core';
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Invocations per row of softmax and rmsNorm (a power of two). */
export const ROW_WG = 64;

/** The WebGPU backend's softmax. */
export const softmaxKernel: WebGpuKernel<'softmax'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'softmax');
    const shape = op.x.shape;
    const cols = shape[shape.length - 1] ?? 1;
    const rows = cols === 0 ? 0 : numel(shape) / cols;
    const matRows = shape.length >= 2 ? (shape[shape.length - 2] ?? 1) : 1;
    const params = { rows, cols, mat_rows: Math.max(1, matRows), causal: op.causal ? 1 : 0 };
    return [
      dispatch(
        WGSL_KERNELS.softmax,
        { x: op.x.gpu, out: out.gpu },
        params,
        { WG: ROW_WG },
        linearGrid(rows, ctx.limits),
      ),
    ];
  },
};
