// softmax, rmsNorm (one workgroup per row) and rope (one invocation per rotated pair).
import { numel, type RmsNormOp, type RopeOp, type SoftmaxOp } from '@tandem/core';
import { RMS_NORM, ROPE, SOFTMAX } from '../kernels.ts';
import { dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

/** Invocations per row of softmax and rmsNorm (a power of two). */
export const ROW_WG = 64;
const ROPE_WG = 256;

/** Row-wise softmax over the last dimension, optionally causal. */
export function planSoftmax(op: SoftmaxOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const shape = op.x.shape;
  const cols = shape[shape.length - 1] ?? 1;
  const rows = cols === 0 ? 0 : numel(shape) / cols;
  const matRows = shape.length >= 2 ? (shape[shape.length - 2] ?? 1) : 1;
  const params = { rows, cols, mat_rows: Math.max(1, matRows), causal: op.causal ? 1 : 0 };
  return [dispatch(SOFTMAX, { x: op.x.gpu, out: out.gpu }, params, { WG: ROW_WG }, linearGrid(rows, ctx.limits))];
}

/** RMSNorm over the last dimension; without a weight the kernel ignores its weight binding (bound to x). */
export function planRmsNorm(op: RmsNormOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const shape = op.x.shape;
  const n = shape[shape.length - 1] ?? 1;
  const rows = n === 0 ? 0 : numel(shape) / n;
  const weight = op.weight?.gpu ?? op.x.gpu;
  const params = { rows, n, eps: op.eps, has_weight: op.weight === undefined ? 0 : 1 };
  return [dispatch(RMS_NORM, { x: op.x.gpu, weight, out: out.gpu }, params, { WG: ROW_WG }, linearGrid(rows, ctx.limits))];
}

/** Rotary embedding on [seq, heads, headDim]. */
export function planRope(op: RopeOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
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
  const grid = linearGrid(Math.ceil(pairs / ROPE_WG), ctx.limits);
  return [dispatch(ROPE, { x: op.x.gpu, out: out.gpu }, params, { WG: ROPE_WG }, grid)];
}
