// attention cases: one token, MHA, GQA and MQA, causal with Sq = Sk and Sq < Sk, non-causal Sq > Sk,
// an explicit scale, no keys, no queries, and a larger prefill-like shape.
import type { ConformanceCase, Tolerance } from '../case.ts';
import { normalF32 } from '../host-tensor.ts';

/** Sizes of one case. */
interface AttentionShape {
  readonly sq: number;
  readonly sk: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly causal: boolean;
  readonly scale?: number;
}

const SHAPES: readonly AttentionShape[] = [
  { sq: 1, sk: 1, heads: 1, kvHeads: 1, headDim: 1, causal: false },
  { sq: 7, sk: 7, heads: 2, kvHeads: 2, headDim: 8, causal: false },
  { sq: 7, sk: 7, heads: 2, kvHeads: 2, headDim: 8, causal: true },
  { sq: 3, sk: 17, heads: 8, kvHeads: 2, headDim: 16, causal: true },
  { sq: 3, sk: 17, heads: 6, kvHeads: 3, headDim: 16, causal: false },
  { sq: 1, sk: 33, heads: 4, kvHeads: 1, headDim: 64, causal: true },
  { sq: 5, sk: 2, heads: 2, kvHeads: 1, headDim: 4, causal: false },
  { sq: 4, sk: 9, heads: 2, kvHeads: 2, headDim: 12, causal: true, scale: 0.3 },
  { sq: 2, sk: 0, heads: 2, kvHeads: 2, headDim: 4, causal: false },
  { sq: 0, sk: 3, heads: 2, kvHeads: 1, headDim: 4, causal: true },
  { sq: 16, sk: 128, heads: 8, kvHeads: 2, headDim: 64, causal: true },
];

/**
 * Logits are f32 dot products of length D (error ~ D^1.5 eps, scaled by 1/sqrt(D)); exp adds a few ulp and
 * the weighted sum over Sk values of unit scale adds ~Sk eps relative.
 */
const tolerance = (s: AttentionShape): Tolerance => ({ abs: 1e-5 + s.headDim * 1e-6, rel: 1e-4 });

function name(s: AttentionShape): string {
  const kind = s.kvHeads === s.heads ? 'MHA' : s.kvHeads === 1 ? 'MQA' : 'GQA';
  const scale = s.scale === undefined ? '' : ` scale ${s.scale}`;
  return `attention f32 Sq${s.sq} Sk${s.sk} H${s.heads}/${s.kvHeads} D${s.headDim} ${kind}${s.causal ? ' causal' : ''}${scale}`;
}

function attentionCase(s: AttentionShape): ConformanceCase {
  return {
    name: name(s),
    build: (rng) => ({
      op: 'attention',
      q: normalF32(rng, [s.sq, s.heads, s.headDim]),
      k: normalF32(rng, [s.sk, s.kvHeads, s.headDim]),
      v: normalF32(rng, [s.sk, s.kvHeads, s.headDim]),
      causal: s.causal,
      scale: s.scale,
    }),
    tolerance: tolerance(s),
  };
}

/** Every attention case. */
export const ATTENTION_CASES: readonly ConformanceCase[] = SHAPES.map(attentionCase);
