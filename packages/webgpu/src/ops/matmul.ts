// matmul (tiled, vec4 fast path), quantizedMatmul (Q8_0 / Q4_0 weights) and dequantize.
import { numel, type DequantizeOp, type MatmulOp, type QuantizedMatmulOp } from '@tandem/core';
import {
  DEQUANTIZE_Q4_0,
  DEQUANTIZE_Q8_0,
  MATMUL_F32,
  MATMUL_F32_VEC4,
  MATMUL_TILE,
  QUANTIZED_MATMUL_Q4_0,
  QUANTIZED_MATMUL_Q8_0,
  QUANTIZED_MATMUL_ROWS,
} from '../kernels.ts';
import { copy, dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

/** Invocations per workgroup of the quantized matmul and dequantize kernels. */
export const QUANTIZED_WG = 64;
const DEQUANTIZE_WG = 256;

/** a [M, K] x b [K, N]: 64 x 64 tiles; vec4 loads when K and N are multiples of 4. */
export function planMatmul(op: MatmulOp<DeviceTensor>, out: DeviceTensor): Step[] {
  const [m = 0, k = 0] = op.a.shape;
  const n = op.b.shape[1] ?? 0;
  const kernel = k % 4 === 0 && n % 4 === 0 ? MATMUL_F32_VEC4 : MATMUL_F32;
  const grid = [Math.ceil(n / MATMUL_TILE), Math.ceil(m / MATMUL_TILE)] as const;
  const overrides = { ROUND_F16: out.dtype === 'f16' ? 1 : 0 };
  return [dispatch(kernel, { a: op.a.gpu, b: op.b.gpu, out: out.gpu }, { m, n, k }, overrides, grid)];
}

/** x [M, K] f32 times quantized w [N, K]: one workgroup per (column, group of 4 rows). */
export function planQuantizedMatmul(op: QuantizedMatmulOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const [m = 0, k = 0] = op.x.shape;
  const n = op.w.shape[0] ?? 0;
  const rowGroups = Math.ceil(m / QUANTIZED_MATMUL_ROWS);
  const kernel = op.w.dtype === 'q8_0' ? QUANTIZED_MATMUL_Q8_0 : QUANTIZED_MATMUL_Q4_0;
  const params = { m, n, k, row_groups: rowGroups };
  const grid = linearGrid(n * rowGroups, ctx.limits);
  return [dispatch(kernel, { x: op.x.gpu, w: op.w.gpu, out: out.gpu }, params, { WG: QUANTIZED_WG }, grid)];
}

/** q8_0 / q4_0 -> f32 by kernel; f16 reaches the planner widened to f32 (f16-storage.ts), so it is a copy. */
export function planDequantize(op: DequantizeOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const n = numel(out.shape);
  if (op.x.dtype === 'f16') return [copy(op.x.gpu, out.gpu, n * 4)];
  const kernel = op.x.dtype === 'q8_0' ? DEQUANTIZE_Q8_0 : DEQUANTIZE_Q4_0;
  const grid = linearGrid(Math.ceil(n / DEQUANTIZE_WG), ctx.limits);
  return [dispatch(kernel, { blocks: op.x.gpu, out: out.gpu }, { n }, { WG: DEQUANTIZE_WG }, grid)];
}
