// rope: wgsl/rope.wgsl on [seq, heads, headDim], one invocation per rotated pair.
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch, linearGrid } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

const ROPE_WG = 256;

/** The WebGPU backend's rope. */
export const ropeKernel: WebGpuKernel<'rope'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'rope');
    const [seq = 0, heads = 0, headDim = 0] = op.x.shape;
    const pairs = (seq * heads * headDim) / 2;
    const params = {
      seq,
      heads,
      head_dim: headDim,
      position_offset: op.positionOffset,
      log2_base: Math.log2(op.base),
      neox: op.mode === 'neox' ? 1 : 0,
    };
    return [
      dispatch(
        WGSL_KERNELS.rope,
        { x: op.x.gpu, out: out.gpu },
        params,
        { WG: ROPE_WG },
        linearGrid(Math.ceil(pairs / ROPE_WG), ctx.limits),
      ),
    ];
  },
};
