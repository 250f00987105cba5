// topK: wgsl/top_k.wgsl, one workgroup per row running k selection rounds (O(k * n) per row).
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Largest k * n per row topK takes on the GPU (its cost is O(k * n) per row). */
export const TOP_K_MAX_WORK = 2 ** 28;

/** The WebGPU backend's topK: 256 invocations per row for long rows, 64 for short. */
export const topKKernel: WebGpuKernel<'topK'> = {
  plan(op, outputs, ctx) {
    const [values, indices] = [output(outputs, 0, 'topK'), output(outputs, 1, 'topK')];
    const shape = op.x.shape;
    const n = shape[shape.length - 1] ?? 0;
    const rows = shape.length === 1 ? 1 : (shape[0] ?? 0);
    const wg = n >= 2048 ? Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup) : 64;
    return [
      dispatch(
        WGSL_KERNELS.top_k,
        { x: op.x.gpu, values: values.gpu, indices: indices.gpu },
        { rows, n, k: op.k },
        { WG: wg },
        linearGrid(rows, ctx.limits),
      ),
    ];
  },
  refuse(op) {
    const n = op.x.shape[op.x.shape.length - 1] ?? 0;
    return op.k * n > TOP_K_MAX_WORK
      ? `topK with k = ${op.k} over rows of ${n} is ${op.k * n} comparisons per row; the GPU limit is ${TOP_K_MAX_WORK}`
      : undefined;
  },
};
