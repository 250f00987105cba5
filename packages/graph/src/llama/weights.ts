// Fixed-seed random weights of one decoder block, on the host, in the layout each projection's op takes.
import { createRng, quantizeAs, type Rng } from '@tandem/core';
import { checkConfig, headDimOf, type DecoderConfig, type WeightType } from './config.ts';

/** A projection y = x W^T (W is [out, in]) as the op that computes it wants its weights. */
export type ProjectionWeights =
  | {
      /** f32: computed with matmul. */
      readonly dtype: 'f32';
      /** Output features (N). */
      readonly outFeatures: number;
      /** Input features (K). */
      readonly inFeatures: number;
      /** W^T, [in, out] row-major: matmul's b. */
      readonly values: Float32Array;
    }
  | {
      /** Quantized: computed with quantizedMatmul. */
      readonly dtype: 'q8_0' | 'q4_0';
      /** Output features (N). */
      readonly outFeatures: number;
      /** Input features (K). */
      readonly inFeatures: number;
      /** W as ggml blocks, [out, in] (ggml's layout): quantizedMatmul's w. */
      readonly blocks: Uint8Array;
    };

/** Every weight of one block. */
export interface DecoderWeights {
  /** The sizes they were made for. */
  readonly config: DecoderConfig;
  /** RMSNorm gain before attention, [dim]. */
  readonly attnNorm: Float32Array;
  /** RMSNorm gain before the MLP, [dim]. */
  readonly ffnNorm: Float32Array;
  /** Query projection, dim -> heads * headDim. */
  readonly wq: ProjectionWeights;
  /** Key projection, dim -> kvHeads * headDim. */
  readonly wk: ProjectionWeights;
  /** Value projection, dim -> kvHeads * headDim. */
  readonly wv: ProjectionWeights;
  /** Output projection, dim -> dim. */
  readonly wo: ProjectionWeights;
  /** MLP gate projection, dim -> hidden. */
  readonly wGate: ProjectionWeights;
  /** MLP up projection, dim -> hidden. */
  readonly wUp: ProjectionWeights;
  /** MLP down projection, hidden -> dim. */
  readonly wDown: ProjectionWeights;
}

/** W [out, in] with entries uniform in +-sqrt(3 / in) (standard deviation 1/sqrt(in): activations stay O(1)). */
function randomProjection(rng: Rng, dtype: WeightType, outFeatures: number, inFeatures: number): ProjectionWeights {
  const bound = Math.sqrt(3 / inFeatures);
  const w = rng.fillUniform(new Float32Array(outFeatures * inFeatures), -bound, bound);
  if (dtype !== 'f32') return { dtype, outFeatures, inFeatures, blocks: quantizeAs(dtype, w) };
  const values = new Float32Array(w.length);
  for (let o = 0; o < outFeatures; o++) {
    for (let i = 0; i < inFeatures; i++) values[i * outFeatures + o] = w[o * inFeatures + i] ?? 0;
  }
  return { dtype, outFeatures, inFeatures, values };
}

/** Weights of one block from `seed` (the same seed gives the same weights everywhere). */
export function createDecoderWeights(config: DecoderConfig, seed = 1): DecoderWeights {
  checkConfig(config);
  const rng = createRng(seed);
  const { dim, hidden, kvHeads, weightType } = config;
  const kvDim = kvHeads * headDimOf(config);
  const gain = (): Float32Array => rng.fillUniform(new Float32Array(dim), 0.9, 1.1);
  return {
    config,
    attnNorm: gain(),
    ffnNorm: gain(),
    wq: randomProjection(rng, weightType, dim, dim),
    wk: randomProjection(rng, weightType, kvDim, dim),
    wv: randomProjection(rng, weightType, kvDim, dim),
    wo: randomProjection(rng, weightType, dim, dim),
    wGate: randomProjection(rng, weightType, hidden, dim),
    wUp: randomProjection(rng, weightType, hidden, dim),
    wDown: randomProjection(rng, weightType, dim, hidden),
  };
}

/** Host bytes of all the weights. */
export function weightBytes(weights: DecoderWeights): number {
  const projections = [weights.wq, weights.wk, weights.wv, weights.wo, weights.wGate, weights.wUp, weights.wDown];
  return (
    weights.attnNorm.byteLength +
    weights.ffnNorm.byteLength +
    projections.reduce((s, p) => s + (p.dtype === 'f32' ? p.values.byteLength : p.blocks.byteLength), 0)
  );
}

/** Fixed-seed activations [rows, dim], standard normal. */
export function randomActivations(config: DecoderConfig, rows: number, seed = 2): Float32Array {
  return createRng(seed).fillNormal(new Float32Array(rows * config.dim), 1);
}
