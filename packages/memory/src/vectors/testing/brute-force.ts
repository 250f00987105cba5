// Test support: a float64 brute-force oracle for cosine search and a tolerance-aware comparison of hit lists.
import { expect } from 'vitest';
import { createRng } from '@tandem/core';
import type { SearchHit } from '../search-hit.ts';

/** Cosine similarity of query row `q` against every target row, in float64. */
export function cosineScores(queries: Float32Array, q: number, targets: Float32Array, dim: number): Float64Array {
  const count = targets.length / dim;
  const scores = new Float64Array(count);
  let qq = 0;
  for (let c = 0; c < dim; c++) qq += (queries[q * dim + c] ?? 0) ** 2;
  for (let t = 0; t < count; t++) {
    let dot = 0;
    let tt = 0;
    for (let c = 0; c < dim; c++) {
      const v = targets[t * dim + c] ?? 0;
      dot += (queries[q * dim + c] ?? 0) * v;
      tt += v * v;
    }
    scores[t] = dot / Math.sqrt(qq * tt);
  }
  return scores;
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
