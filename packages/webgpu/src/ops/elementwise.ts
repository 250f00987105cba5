// add, mul, scale, silu, swiglu: one invocation per element.
import { numel, type BinaryOp, type ScaleOp, type SiluOp, type SwigluOp } from '@tandem/core';
import { ADD, MUL, SCALE, SILU, SWIGLU } from '../kernels.ts';
import { dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

/** Invocations per workgroup of the elementwise kernels. */
export const ELEMENTWISE_WG = 256;

/** add / mul with b broadcast over a's leading dimensions; f16 results rounded to binary16. */
export function planBinary(op: BinaryOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const n = numel(out.shape);
  const kernel = op.op === 'add' ? ADD : MUL;
  const overrides = { WG: ELEMENTWISE_WG, ROUND_F16: out.dtype === 'f16' ? 1 : 0 };
  const params = { n, b_len: numel(op.b.shape) };
  return [dispatch(kernel, { a: op.a.gpu, b: op.b.gpu, out: out.gpu }, params, overrides, groups(n, ctx))];
}

/** x * factor; f16 results rounded to binary16. */
export function planScale(op: ScaleOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const n = numel(out.shape);
  const overrides = { WG: ELEMENTWISE_WG, ROUND_F16: out.dtype === 'f16' ? 1 : 0 };
  return [dispatch(SCALE, { x: op.x.gpu, out: out.gpu }, { n, factor: op.factor }, overrides, groups(n, ctx))];
}

/** x * sigmoid(x). */
export function planSilu(op: SiluOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const n = numel(out.shape);
  return [dispatch(SILU, { x: op.x.gpu, out: out.gpu }, { n }, { WG: ELEMENTWISE_WG }, groups(n, ctx))];
}

/** silu(gate) * up. */
export function planSwiglu(op: SwigluOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const n = numel(out.shape);
  const buffers = { gate: op.gate.gpu, up: op.up.gpu, out: out.gpu };
  return [dispatch(SWIGLU, buffers, { n }, { WG: ELEMENTWISE_WG }, groups(n, ctx))];
}

function groups(n: number, ctx: PlanContext): readonly [number, number] {
  return linearGrid(Math.ceil(n / ELEMENTWISE_WG), ctx.limits);
}
