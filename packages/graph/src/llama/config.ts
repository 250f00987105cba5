// Sizes of a Llama-style decoder block, and the two the issue asks for.
import { InvalidArgumentError, QUANT_BLOCK, type RopeMode } from '@tandem/core';

/** How the projection weights are stored: f32 (matmul) or ggml blocks (quantizedMatmul). */
export type WeightType = 'f32' | 'q8_0' | 'q4_0';

/** Shape and numerics of one decoder block. */
export interface DecoderConfig {
  /** Name in reports and node labels' graph names, e.g. 'tiny'. */
  readonly name: string;
  /** Model (residual stream) width. */
  readonly dim: number;
  /** Query heads; dim / heads is the head dimension. */
  readonly heads: number;
  /** Key/value heads (GQA when fewer than heads); divides heads. */
  readonly kvHeads: number;
  /** Width of the SwiGLU MLP. */
  readonly hidden: number;
  /** RMSNorm epsilon. */
  readonly eps: number;
  /** RoPE frequency base (10000 for Llama 1/2). */
  readonly ropeBase: number;
  /** RoPE pairing: 'interleaved' is ggml's mode for Llama (weights permuted at conversion). */
  readonly ropeMode: RopeMode;
  /** Storage of the seven projection matrices. */
  readonly weightType: WeightType;
}

/** llama2.c's stories15M layer: dim 288, 6 heads, hidden 768. */
export const TINY_DECODER: DecoderConfig = {
  name: 'tiny',
  dim: 288,
  heads: 6,
  kvHeads: 6,
  hidden: 768,
  eps: 1e-5,
  ropeBase: 10000,
  ropeMode: 'interleaved',
  weightType: 'f32',
};

/** One layer of Llama 2 7B: dim 4096, 32 heads of 128, hidden 11008; Q8_0 weights (f32 gate/up exceed WebGPU's 128 MiB binding limit). */
export const LLAMA_7B_DECODER: DecoderConfig = {
  name: '7b',
  dim: 4096,
  heads: 32,
  kvHeads: 32,
  hidden: 11008,
  eps: 1e-5,
  ropeBase: 10000,
  ropeMode: 'interleaved',
  weightType: 'q8_0',
};

/** Values per head. */
export function headDimOf(config: DecoderConfig): number {
  return config.dim / config.heads;
}

/** Throws InvalidArgumentError naming the field when a config cannot describe a block. */
export function checkConfig(config: DecoderConfig): void {
  const field = (name: string, value: number, rule: string): never => {
    throw new InvalidArgumentError(`${config.name}.${name}`, value, rule);
  };
  for (const [name, value] of [
    ['dim', config.dim],
    ['heads', config.heads],
    ['kvHeads', config.kvHeads],
    ['hidden', config.hidden],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) field(name, value, 'must be a positive integer');
  }
  if (config.dim % config.heads !== 0) field('heads', config.heads, `must divide dim (${config.dim})`);
  if (config.heads % config.kvHeads !== 0) field('kvHeads', config.kvHeads, `must divide heads (${config.heads})`);
  if (headDimOf(config) % 2 !== 0)
    field('heads', config.heads, `must leave an even head dimension (dim / heads = ${headDimOf(config)})`);
  if (config.weightType !== 'f32') {
    if (config.dim % QUANT_BLOCK !== 0)
      field('dim', config.dim, `must be a multiple of ${QUANT_BLOCK} for ${config.weightType} weights`);
    if (config.hidden % QUANT_BLOCK !== 0)
      field('hidden', config.hidden, `must be a multiple of ${QUANT_BLOCK} for ${config.weightType} weights`);
  }
}
