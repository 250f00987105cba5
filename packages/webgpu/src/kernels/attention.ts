// attention: wgsl/attention.wgsl, one workgroup per (query, head), keys in tiles with an online softmax.
import { dispatch, linearGrid } from '../plan.ts';
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Invocations per workgroup = keys per tile. */
export const ATTENTION_WG = 64;

/** Workgroup memory the attention kernel needs for head dimension d, bytes. */
export function attentionWorkgroupBytes(headDim: number): number {
  return (2 * Math.max(1, headDim) + 2 * ATTENTION_WG) * 4;
}

/** The WebGPU backend's attention (scaled dot-product attention with grouped KV heads). */
export const attentionKernel: WebGpuKernel<'attention'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'attention');
    const [sq = 0, heads = 0, headDim = 0] = op.q.shape;
    const [sk = 0, kvHeads = 1] = op.k.shape;
    const params = {
      sq,
      sk,
      heads,
      kv_heads: kvHeads,
      head_dim: headDim,
      causal: op.causal ? 1 : 0,
      scale: op.scale ?? 1 / Math.sqrt(headDim),
    };
    const overrides = { WG: ATTENTION_WG, MAX_D: Math.max(1, headDim) };
    const buffers = { q: op.q.gpu, k: op.k.gpu, v: op.v.gpu, out: out.gpu };
    return [dispatch(WGSL_KERNELS.attention, buffers, params, overrides, linearGrid(sq * heads, ctx.limits))];
  },
  refuse(op, limits) {
    const headDim = op.q.shape[2] ?? 0;
    const bytes = attentionWorkgroupBytes(headDim);
    if (bytes <= limits.maxComputeWorkgroupStorageSize) return undefined;
    return `attention with head dimension ${headDim} needs ${bytes} bytes of workgroup memory; maxComputeWorkgroupStorageSize is ${limits.maxComputeWorkgroupStorageSize}`;
  },
};
