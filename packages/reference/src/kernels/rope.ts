// rope: rotary position embedding on x [seq, heads, headDim]. Token s has position p = positionOffset + s; pair i
// (0 <= i < headDim / 2) turns by the angle p * base^(-2i / headDim). 'interleaved' (ggml's normal mode) pairs
// dimensions (2i, 2i + 1); 'neox' pairs (i, i + headDim / 2). Angles, cos and sin are float64.
import { InvalidArgumentError, type RopeMode } from '@tandem/core';
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** Dimensions and parameters of one rope call. */
export interface RopeParams {
  /** Tokens (rows of x). */
  readonly seq: number;
  /** Heads per token. */
  readonly heads: number;
  /** Values per head; even. */
  readonly headDim: number;
  /** Position of token 0. */
  readonly positionOffset: number;
  /** Frequency base theta (10000 for Llama). */
  readonly base: number;
  /** Which dimensions form a pair. */
  readonly mode: RopeMode;
}

/** Rotates each pair of each head of each token by its position's angle. */
export function rope(x: Float32Array, params: RopeParams): Float32Array {
  const { seq, heads, headDim, positionOffset, base, mode } = params;
  expectCount('rope.seq', seq);
  expectCount('rope.heads', heads);
  expectCount('rope.headDim', headDim);
  if (headDim % 2 !== 0) throw new InvalidArgumentError('rope.headDim', headDim, 'must be even');
  expectLength('rope.x', x, seq * heads * headDim);
  const half = headDim / 2;
  const out = new Float32Array(x.length);
  for (let s = 0; s < seq; s++) {
    const position = positionOffset + s;
    for (let i = 0; i < half; i++) {
      const angle = position * base ** ((-2 * i) / headDim);
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const [first, second] = mode === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + half];
      for (let h = 0; h < heads; h++) {
        const row = (s * heads + h) * headDim;
        const x0 = x[row + first] ?? 0;
        const x1 = x[row + second] ?? 0;
        out[row + first] = x0 * cos - x1 * sin;
        out[row + second] = x0 * sin + x1 * cos;
      }
    }
  }
  return out;
}

/** The reference's rope. */
export const ropeKernel: ReferenceKernel<'rope'> = {
  run(op) {
    const params = {
      seq: dim(op.x, 0),
      heads: dim(op.x, 1),
      headDim: dim(op.x, 2),
      positionOffset: op.positionOffset,
      base: op.base,
      mode: op.mode,
    };
    return [bytesOf(rope(f32(op.x, 'rope.x'), params))];
  },
};
