// cosineSimilarity (LANES invocations per score, reading rows coalesced; targets past one binding in chunks) and topK (one workgroup per row, k selection rounds).
import type { CosineSimilarityOp, TopKOp } from '@tandem/core';
import { COSINE_SIMILARITY, COSINE_SIMILARITY_VEC4, TOP_K } from '../kernels.ts';
import { BufferRange, dispatch, linearGrid, STORAGE_OFFSET_ALIGNMENT, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

/**
 * Workgroup size and invocations per score of the vec4 kernel (each step reads LANES * 16 consecutive bytes of a row,
 * four steps' loads in flight per invocation). On an H100 (Dawn, Vulkan; 768-d rows, kernel alone, webgpu-cosine-
 * probe.mjs) 128 / 8 read 2.65-3.06 TB/s from 65k to 699k targets against 2.54-3.05 for the earlier 256 / 16 without
 * the unrolling, and 1.22-1.74 TB/s against 1.12-1.43 once the device is in its slow-read mode after large uploads.
 */
const COSINE_VEC4_WG = 128;
const COSINE_VEC4_LANES = 8;
/** The same for the scalar kernel (dims not a multiple of 4). */
const COSINE_WG = 256;
const COSINE_LANES = 16;

/** Largest k * n per row topK takes on the GPU (its cost is O(k * n) per row). */
export const TOP_K_MAX_WORK = 2 ** 28;

/** Cosine similarity of every query with every target; targets past one storage binding go in several dispatches. */
export function planCosineSimilarity(op: CosineSimilarityOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const [nt = 0, dim = 0] = op.targets.shape;
  const nq = op.queries.shape.length === 1 ? 1 : (op.queries.shape[0] ?? 0);
  // Rows of a multiple of 4 floats are read as vec4f (a quarter of the load instructions).
  const vec4 = dim % 4 === 0;
  const kernel = vec4 ? COSINE_SIMILARITY_VEC4 : COSINE_SIMILARITY;
  const [wg, lanes] = vec4 ? [COSINE_VEC4_WG, COSINE_VEC4_LANES] : [COSINE_WG, COSINE_LANES];
  const rowsPerDispatch = cosineTargetRowsPerBinding(dim, ctx.limits.maxStorageBufferBindingSize);
  if (rowsPerDispatch === 0 && nt > 0) throw new RangeError(`cosineSimilarity: a target row of ${dim * 4} bytes does not fit one storage binding`);
  const steps: Step[] = [];
  for (let t0 = 0; t0 < nt; t0 += rowsPerDispatch) {
    const rows = Math.min(rowsPerDispatch, nt - t0);
    const targets = rows === nt ? op.targets.gpu : new BufferRange(op.targets.gpu, t0 * dim * 4, rows * dim * 4);
    const buffers = { queries: op.queries.gpu, targets, out: out.gpu };
    const grid = linearGrid(Math.ceil((nq * rows) / (wg / lanes)), ctx.limits);
    steps.push(dispatch(kernel, buffers, { nq, nt: rows, dim, out_nt: nt, t0 }, { WG: wg, LANES: lanes }, grid));
  }
  return steps;
}

/**
 * Target rows one cosine dispatch binds: as many as fit in `maxBindingBytes`, rounded down so that every range
 * starts at a multiple of STORAGE_OFFSET_ALIGNMENT bytes; 0 when not even one aligned group of rows fits.
 */
export function cosineTargetRowsPerBinding(dim: number, maxBindingBytes: number): number {
  const rowBytes = dim * 4;
  if (rowBytes === 0) return Number.MAX_SAFE_INTEGER;
  const fit = Math.floor(maxBindingBytes / rowBytes);
  const step = STORAGE_OFFSET_ALIGNMENT / gcd(rowBytes, STORAGE_OFFSET_ALIGNMENT);
  return fit - (fit % step);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The k largest of each row with indices; 256 invocations per row for long rows, 64 for short. */
export function planTopK(op: TopKOp<DeviceTensor>, values: DeviceTensor, indices: DeviceTensor, ctx: PlanContext): Step[] {
  const shape = op.x.shape;
  const n = shape[shape.length - 1] ?? 0;
  const rows = shape.length === 1 ? 1 : (shape[0] ?? 0);
  const wg = n >= 2048 ? Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup) : 64;
  const buffers = { x: op.x.gpu, values: values.gpu, indices: indices.gpu };
  return [dispatch(TOP_K, buffers, { rows, n, k: op.k }, { WG: wg }, linearGrid(rows, ctx.limits))];
}
