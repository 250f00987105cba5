// cosineSimilarity: each query against each target, dot / (|q| |t|) in float64; a zero vector scores 0.
import { expectCount, expectLength } from './check.ts';

/** queries [q, d] x targets [t, d] -> [q, t] cosine similarities. */
export function cosineSimilarity(queries: Float32Array, targets: Float32Array, q: number, t: number, d: number): Float32Array {
  expectCount('cosineSimilarity.q', q);
  expectCount('cosineSimilarity.t', t);
  expectCount('cosineSimilarity.d', d);
  expectLength('cosineSimilarity.queries', queries, q * d);
  expectLength('cosineSimilarity.targets', targets, t * d);
  const targetNorms = new Float64Array(t);
  for (let j = 0; j < t; j++) targetNorms[j] = norm(targets, j * d, d);
  const out = new Float32Array(q * t);
  for (let i = 0; i < q; i++) {
    const queryNorm = norm(queries, i * d, d);
    for (let j = 0; j < t; j++) {
      const denominator = queryNorm * (targetNorms[j] ?? 0);
      if (denominator === 0) continue; // a zero vector scores 0
      let dot = 0;
      for (let c = 0; c < d; c++) dot += (queries[i * d + c] ?? 0) * (targets[j * d + c] ?? 0);
      out[i * t + j] = dot / denominator;
    }
  }
  return out;
}

/** Euclidean norm of values[base .. base + d). */
function norm(values: Float32Array, base: number, d: number): number {
  let squares = 0;
  for (let c = 0; c < d; c++) squares += (values[base + c] ?? 0) ** 2;
  return Math.sqrt(squares);
}
