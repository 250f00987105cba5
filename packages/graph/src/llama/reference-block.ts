// The decoder block computed straight from @tandem/reference's kernels (each op in float64, rounded to f32 between
// ops), with the KV cache as plain array concatenation: the oracle the graph, the executor and KvCache are tested
// against. It never touches an Engine or a graph.
import { add, attention, matmul, quantizedMatmul, rmsNorm, rope, swiglu } from '@tandem/reference';
import { headDimOf } from './config.ts';
import type { DecoderWeights, ProjectionWeights } from './weights.ts';

/** One reference step's results. */
export interface ReferenceStep {
  /** Block output [tokens, dim]. */
  readonly out: Float32Array;
  /** All keys after this step, [past + tokens, kvHeads, headDim] (roped). */
  readonly keys: Float32Array;
  /** All values after this step, [past + tokens, kvHeads, headDim]. */
  readonly values: Float32Array;
}

function project(x: Float32Array, rows: number, w: ProjectionWeights): Float32Array {
  if (w.dtype === 'f32') return matmul(x, w.values, rows, w.inFeatures, w.outFeatures);
  return quantizedMatmul(x, w.blocks, w.dtype, rows, w.inFeatures, w.outFeatures);
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** x [tokens, dim] at positions after `past` cached tokens (keys and values given as flat arrays, possibly empty). */
export function referenceDecoderStep(
  weights: DecoderWeights,
  x: Float32Array,
  past: { keys: Float32Array; values: Float32Array },
): ReferenceStep {
  const c = weights.config;
  const hd = headDimOf(c);
  const tokens = x.length / c.dim;
  const pastTokens = past.keys.length / (c.kvHeads * hd);
  const h = rmsNorm(x, c.dim, weights.attnNorm, c.eps);
  const ropeParams = { seq: tokens, headDim: hd, positionOffset: pastTokens, base: c.ropeBase, mode: c.ropeMode };
  const q = rope(project(h, tokens, weights.wq), { ...ropeParams, heads: c.heads });
  const keys = concat(past.keys, rope(project(h, tokens, weights.wk), { ...ropeParams, heads: c.kvHeads }));
  const values = concat(past.values, project(h, tokens, weights.wv));
  const dims = { sq: tokens, sk: pastTokens + tokens, heads: c.heads, kvHeads: c.kvHeads, headDim: hd };
  const attended = attention(q, keys, values, dims, true, undefined);
  const residual = add(x, project(attended, tokens, weights.wo));
  const n = rmsNorm(residual, c.dim, weights.ffnNorm, c.eps);
  const mlp = project(
    swiglu(project(n, tokens, weights.wGate), project(n, tokens, weights.wUp)),
    tokens,
    weights.wDown,
  );
  return { out: add(residual, mlp), keys, values };
}
