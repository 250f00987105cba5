// Ground truth and recall: exact top-k by brute force through VectorOps (the engine), and recall@k of any answer.
import type { Engine } from '@tandem/core';
import { VectorOps, type SearchHit } from '@tandem/memory';

/** Exact top-k indices of each query (q x dim) against all vectors, computed on the engine in slices. */
export async function exactTopK(
  engine: Engine,
  vectors: Float32Array,
  dim: number,
  queries: Float32Array,
  k: number,
): Promise<number[][]> {
  const ops = await VectorOps.create(engine, vectors, dim);
  try {
    const hits = await ops.searchMany(queries, k);
    return hits.map((row) => row.map((h) => h.index));
  } finally {
    ops.dispose();
  }
}

/** Fraction of the true top-k found in the answers (each answer row compared with its truth row). */
export function recallAt(truth: readonly number[][], answers: readonly (readonly number[])[]): number {
  let found = 0;
  let total = 0;
  for (let q = 0; q < truth.length; q++) {
    const expected = new Set(truth[q]);
    total += expected.size;
    for (const index of answers[q] ?? []) if (expected.has(index)) found++;
  }
  return total === 0 ? 0 : found / total;
}

/** The indices of search hits. */
export function indicesOf(rows: readonly SearchHit[][]): number[][] {
  return rows.map((row) => row.map((h) => h.index));
}
