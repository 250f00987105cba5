// matmul: wgsl/matmul_f32.wgsl in 64 x 64 tiles; wgsl/matmul_f32_vec4.wgsl (vec4 loads) when K and N are multiples
// of 4. f16 results rounded to binary16.
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Output rows and columns of one matmul workgroup's tile. */
export const MATMUL_TILE = 64;

/** The WebGPU backend's matmul: a [M, K] x b [K, N]. */
export const matmulKernel: WebGpuKernel<'matmul'> = {
  plan(op, outputs) {
    const out = output(outputs, 0, 'matmul');
    const [m = 0, k = 0] = op.a.shape;
    const n = op.b.shape[1] ?? 0;
    const kernel = k % 4 === 0 && n % 4 === 0 ? WGSL_KERNELS.matmul_f32_vec4 : WGSL_KERNELS.matmul_f32;
    const grid = [Math.ceil(n / MATMUL_TILE), Math.ceil(m / MATMUL_TILE)] as const;
    return [
      dispatch(
        kernel,
        { a: op.a.gpu, b: op.b.gpu, out: out.gpu },
        { m, n, k },
        { ROUND_F16: out.dtype === 'f16' ? 1 : 0 },
        grid,
      ),
    ];
  },
  refuse(op, limits) {
    const m = op.a.shape[0] ?? 0;
    const n = op.b.shape[1] ?? 0;
    const perDim = limits.maxComputeWorkgroupsPerDimension;
    if (Math.ceil(m / MATMUL_TILE) <= perDim && Math.ceil(n / MATMUL_TILE) <= perDim) return undefined;
    return `matmul of [${m}, ${n}] needs more than ${perDim} workgroups in one dimension`;
  },
};
