// attention: multi-head scaled dot-product attention with grouped KV heads, all in float64.
//   q [Sq, H, D], k and v [Sk, Hkv, D] -> out [Sq, H, D]; head h reads kv head floor(h / (H / Hkv)).
//   With `causal`, query i sits at absolute position Sk - Sq + i and sees keys j <= that position.
//   A query that sees no key (Sk = 0) gives zeros.
import { InvalidArgumentError } from '@tandem/core';
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** Sizes of one attention call. */
export interface AttentionDims {
  /** Queries (tokens of q). */
  readonly sq: number;
  /** Keys and values (tokens of k and v). */
  readonly sk: number;
  /** Query heads H. */
  readonly heads: number;
  /** KV heads Hkv; divides H. */
  readonly kvHeads: number;
  /** Values per head D. */
  readonly headDim: number;
}

/** softmax(q k^T * scale [+ causal mask]) v per head; scale defaults to 1 / sqrt(D). */
export function attention(
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  dims: AttentionDims,
  causal: boolean,
  scale: number | undefined,
): Float32Array {
  const { sq, sk, heads, kvHeads, headDim } = dims;
  expectCount('attention.sq', sq);
  expectCount('attention.sk', sk);
  expectCount('attention.heads', heads);
  expectCount('attention.kvHeads', kvHeads);
  expectCount('attention.headDim', headDim);
  if (kvHeads === 0 ? heads !== 0 : heads % kvHeads !== 0)
    throw new InvalidArgumentError('attention.kvHeads', kvHeads, `must divide heads (${heads})`);
  expectLength('attention.q', q, sq * heads * headDim);
  expectLength('attention.k', k, sk * kvHeads * headDim);
  expectLength('attention.v', v, sk * kvHeads * headDim);
  const logitScale = scale ?? 1 / Math.sqrt(headDim);
  const group = kvHeads === 0 ? 1 : heads / kvHeads;
  const out = new Float32Array(q.length);
  const weights = new Float64Array(sk);
  for (let i = 0; i < sq; i++) {
    const visible = causal ? Math.max(0, Math.min(sk, sk - sq + i + 1)) : sk;
    for (let h = 0; h < heads; h++) {
      const kvh = Math.floor(h / group);
      const qBase = (i * heads + h) * headDim;
      let max = -Infinity;
      for (let j = 0; j < visible; j++) {
        const kBase = (j * kvHeads + kvh) * headDim;
        let dot = 0;
        for (let d = 0; d < headDim; d++) dot += (q[qBase + d] ?? 0) * (k[kBase + d] ?? 0);
        weights[j] = dot * logitScale;
        max = Math.max(max, weights[j] ?? 0);
      }
      if (visible === 0 || max === -Infinity) continue; // nothing to attend to: zeros
      let sum = 0;
      for (let j = 0; j < visible; j++) {
        const w = Math.exp((weights[j] ?? 0) - max);
        weights[j] = w;
        sum += w;
      }
      for (let d = 0; d < headDim; d++) {
        let acc = 0;
        for (let j = 0; j < visible; j++) acc += (weights[j] ?? 0) * (v[(j * kvHeads + kvh) * headDim + d] ?? 0);
        out[qBase + d] = acc / sum;
      }
    }
  }
  return out;
}

/** The reference's attention (one row of float64 weights as scratch). */
export const attentionKernel: ReferenceKernel<'attention'> = {
  run(op) {
    const dims = {
      sq: dim(op.q, 0),
      sk: dim(op.k, 0),
      heads: dim(op.q, 1),
      kvHeads: dim(op.k, 1),
      headDim: dim(op.q, 2),
    };
    return [
      bytesOf(
        attention(
          f32(op.q, 'attention.q'),
          f32(op.k, 'attention.k'),
          f32(op.v, 'attention.v'),
          dims,
          op.causal,
          op.scale,
        ),
      ),
    ];
  },
  scratchBytes: (op) => 8 * dim(op.k, 0),
};
