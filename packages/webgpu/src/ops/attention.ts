// Multi-head attention: one workgroup per (query, head), keys in tiles with an online softmax.
import type { AttentionOp } from '@tandem/core';
import { ATTENTION } from '../kernels.ts';
import { dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

/** Invocations per workgroup = keys per tile. */
export const ATTENTION_WG = 64;

/** Workgroup memory the attention kernel needs for head dimension d, bytes. */
export function attentionWorkgroupBytes(headDim: number): number {
  return (2 * Math.max(1, headDim) + 2 * ATTENTION_WG) * 4;
}

/** Scaled dot-product attention with grouped KV heads. */
export function planAttention(op: AttentionOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
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
  return [dispatch(ATTENTION, buffers, params, overrides, linearGrid(sq * heads, ctx.limits))];
}
