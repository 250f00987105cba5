// cosineSimilarity (COSINE_LANES invocations per score, reading rows coalesced) and topK (one workgroup per row, k selection rounds).
import type { CosineSimilarityOp, TopKOp } from '@tandem/core';
import { COSINE_SIMILARITY, COSINE_SIMILARITY_VEC4, TOP_K } from '../kernels.ts';
import { dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from '../plan.ts';

const COSINE_WG = 256;
/** Invocations per cosine score: a subgroup's worth on most GPUs (32 on NVIDIA), each step reads 128 bytes of a row. */
const COSINE_LANES = 32;

/** Largest k * n per row topK takes on the GPU (its cost is O(k * n) per row). */
export const TOP_K_MAX_WORK = 2 ** 28;

/** Cosine similarity of every query with every target. */
export function planCosineSimilarity(op: CosineSimilarityOp<DeviceTensor>, out: DeviceTensor, ctx: PlanContext): Step[] {
  const [nt = 0, dim = 0] = op.targets.shape;
  const nq = op.queries.shape.length === 1 ? 1 : (op.queries.shape[0] ?? 0);
  const buffers = { queries: op.queries.gpu, targets: op.targets.gpu, out: out.gpu };
  const grid = linearGrid(Math.ceil((nq * nt) / (COSINE_WG / COSINE_LANES)), ctx.limits);
  // Rows of a multiple of 4 floats are read as vec4f (a quarter of the load instructions).
  const kernel = dim % 4 === 0 ? COSINE_SIMILARITY_VEC4 : COSINE_SIMILARITY;
  return [dispatch(kernel, buffers, { nq, nt, dim }, { WG: COSINE_WG, LANES: COSINE_LANES }, grid)];
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
