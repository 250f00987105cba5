// Fixed-seed random weights of one decoder block, on the host, in the layout each projection's op takes.
import {
  createRng,
  floatToHalf,
  InvalidArgumentError,
  Q4_0_BLOCK_BYTES,
  Q8_0_BLOCK_BYTES,
  QUANT_BLOCK,
  quantizeAs,
  type QuantizedDType,
  type Rng,
} from '@tandem/core';
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

/**
 * W [out, in] as random ggml blocks drawn directly: every 4- or 8-bit value uniform, one scale for the matrix chosen
 * so that entries have standard deviation about 1/sqrt(in), as randomProjection's. Much faster than quantizing
 * random floats (a 7B layer in a fraction of a second): for benchmarks of many layers, whose values do not matter.
 */
function randomBlocks(seed: number, dtype: QuantizedDType, outFeatures: number, inFeatures: number): ProjectionWeights {
  const blockBytes = dtype === 'q4_0' ? Q4_0_BLOCK_BYTES : Q8_0_BLOCK_BYTES;
  const blocks = new Uint8Array(((outFeatures * inFeatures) / QUANT_BLOCK) * blockBytes);
  const words = new Uint32Array(blocks.buffer, 0, blocks.byteLength >>> 2);
  let state = (seed * 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    // xorshift32: plenty for weights nobody reads
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[i] = state >>> 0;
  }
  // Uniform 4-bit values (q - 8) have standard deviation ~4.6; 8-bit ones (signed) ~74.
  const d = 1 / ((dtype === 'q4_0' ? 4.6 : 74) * Math.sqrt(inFeatures));
  const scale = floatToHalf(d);
  for (let at = 0; at < blocks.length; at += blockBytes) {
    blocks[at] = scale & 0xff;
    blocks[at + 1] = scale >>> 8;
  }
  return { dtype, outFeatures, inFeatures, blocks };
}

/**
 * Weights of one block whose projections are random ggml blocks drawn directly (randomBlocks), for benchmarks of
 * whole models; the config's weightType must be quantized.
 */
export function createRandomBlockWeights(config: DecoderConfig, seed = 1): DecoderWeights {
  checkConfig(config);
  const dtype = config.weightType;
  if (dtype === 'f32') throw new InvalidArgumentError('config.weightType', dtype, "must be 'q8_0' or 'q4_0' here");
  const { dim, hidden, kvHeads } = config;
  const kvDim = kvHeads * headDimOf(config);
  const gain = createRng(seed).fillUniform(new Float32Array(dim), 0.9, 1.1);
  const p = (i: number, out: number, inFeatures: number): ProjectionWeights =>
    randomBlocks(seed * 7 + i, dtype, out, inFeatures);
  return {
    config,
    attnNorm: gain,
    ffnNorm: gain.slice(),
    wq: p(0, dim, dim),
    wk: p(1, kvDim, dim),
    wv: p(2, kvDim, dim),
    wo: p(3, dim, dim),
    wGate: p(4, hidden, dim),
    wUp: p(5, hidden, dim),
    wDown: p(6, dim, hidden),
  };
}

/** A random quantized output projection (the model's head: dim -> vocab), as createRandomBlockWeights draws. */
export function randomOutputProjection(config: DecoderConfig, vocab: number, seed = 1): ProjectionWeights {
  const dtype = config.weightType;
  if (dtype === 'f32') throw new InvalidArgumentError('config.weightType', dtype, "must be 'q8_0' or 'q4_0' here");
  return randomBlocks(seed, dtype, vocab, config.dim);
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
