// quantizedMatmul: x [M, K] f32 times Q8_0 / Q4_0 weights [N, K] (wgsl/quantized_matmul_q8_0.wgsl,
// quantized_matmul_q4_0.wgsl): one workgroup per (column, group of 4 rows).
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch, gridFits, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Invocations per workgroup of the quantized matmul kernels. */
export const QUANTIZED_WG = 64;

/** Output rows each quantized-matmul workgroup computes (TM in the shaders). */
export const QUANTIZED_MATMUL_ROWS = 4;

/** The WebGPU backend's quantizedMatmul. */
export const quantizedMatmulKernel: WebGpuKernel<'quantizedMatmul'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'quantizedMatmul');
    const [m = 0, k = 0] = op.x.shape;
    const n = op.w.shape[0] ?? 0;
    const rowGroups = Math.ceil(m / QUANTIZED_MATMUL_ROWS);
    const kernel = op.w.dtype === 'q8_0' ? WGSL_KERNELS.quantized_matmul_q8_0 : WGSL_KERNELS.quantized_matmul_q4_0;
    const grid = linearGrid(n * rowGroups, ctx.limits);
    return [
      dispatch(
        kernel,
        { x: op.x.gpu, w: op.w.gpu, out: out.gpu },
        { m, n, k, row_groups: rowGroups },
        { WG: QUANTIZED_WG },
        grid,
      ),
    ];
  },
  refuse(op, limits) {
    const groups = (op.w.shape[0] ?? 0) * Math.ceil((op.x.shape[0] ?? 0) / QUANTIZED_MATMUL_ROWS);
    return gridFits(groups, limits) ? undefined : `quantizedMatmul needs ${groups} workgroups`;
  },
};
