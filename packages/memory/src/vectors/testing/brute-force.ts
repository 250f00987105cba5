// Test support: cosine scores from @tandem/reference (the oracle) and a tolerance-aware comparison of hit lists.
import { expect } from 'vitest';
import { createRng } from '@tandem/core';
import { cosineSimilarity } from '@tandem/reference';
import type { SearchHit } from '../search-hit.ts';

/** Cosine similarity of query row `q` against every target row: @tandem/reference's kernel, the one oracle. */
export function cosineScores(queries: Float32Array, q: number, targets: Float32Array, dim: number): Float64Array {
  return Float64Array.from(
    cosineSimilarity(queries.slice(q * dim, (q + 1) * dim), targets, 1, targets.length / dim, dim),
  );
}

/** The exact top k of `scores`: descending, ties to the lower index. */
export function topOf(scores: Float64Array, k: number): SearchHit[] {
  const order = Array.from(scores.keys()).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  return order.slice(0, k).map((index) => ({ index, score: scores[index] ?? 0 }));
}

/**
 * Checks `got` against the float64 oracle scores of its query: each hit's score is its index's true cosine within
 * `tolerance` relative (|got - true| <= tolerance * max(|true|, 0.05): relative for scores of 0.05 and up,
 * absolute below, where f32 dot products carry ~1e-7 absolute error), each rank is as good as the oracle's
 * rank within twice that (near-ties may swap), and no index repeats.
 */
export function expectHitsMatch(got: readonly SearchHit[], scores: Float64Array, k: number, tolerance: number): void {
  const want = topOf(scores, k);
  expect(got.length).toBe(k);
  expect(new Set(got.map((h) => h.index)).size).toBe(k);
  got.forEach((hit, rank) => {
    const truth = scores[hit.index] ?? Number.NaN;
    const wanted = want[rank]?.score ?? Number.NaN;
    expect(Math.abs(hit.score - truth)).toBeLessThanOrEqual(tolerance * Math.max(Math.abs(truth), 0.05));
    expect(truth).toBeGreaterThanOrEqual(wanted - 2 * tolerance * Math.max(Math.abs(wanted), 0.05));
  });
}

/** count x dim normal vectors from a seed. */
export function randomVectors(count: number, dim: number, seed: number): Float32Array {
  return createRng(seed).fillNormal(new Float32Array(count * dim), 1);
}
