import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, F32, fail, lastDim, outBytesOf, outElemsOf } from '../op-rules.ts';

/** How RoPE pairs dimensions: ggml's 'normal' mode rotates (2i, 2i+1); 'neox' rotates (i, i + D/2). */
export const ROPE_MODES = ['interleaved', 'neox'] as const;

/** Rotary position embedding on x [seq, heads, headDim]; token s has position positionOffset + s. */
export const rope = defineOp({
  id: 'rope',
  doc: 'Rotary position embedding on x [seq, heads, headDim]; token s has position positionOffset + s.',
  batchDoc: 'positions (seq, the first dimension of x)',
  inputs: {
    /** Input [seq, heads, headDim], headDim even. */
    x: { dtypes: F32, ranks: [3] },
  },
  params: {
    /** Position of the first row. */
    positionOffset: 'number',
    /** Frequency base theta, 10000 for Llama. */
    base: 'number',
    /** Pairing of dimensions. */
    mode: ROPE_MODES,
  },
  map: (op, fn) => ({ op: 'rope', x: fn(op.x, 'x'), positionOffset: op.positionOffset, base: op.base, mode: op.mode }),
  outputs(op) {
    if (lastDim(op.x) % 2 !== 0) fail('rope', 'x.shape[2]', lastDim(op.x), 'must be even (head dimension)');
    if (!Number.isInteger(op.positionOffset) || op.positionOffset < 0)
      fail('rope', 'positionOffset', op.positionOffset, 'must be an integer >= 0');
    if (!(op.base > 1) || !Number.isFinite(op.base)) fail('rope', 'base', op.base, 'must be a finite number > 1');
    return [{ dtype: 'f32', shape: op.x.shape }];
  },
  work: (op, outputs) => ({
    flops: outElemsOf(outputs) * 6,
    bytes: bytesOf(op.x) + outBytesOf(outputs),
    batch: dim(op.x, 0),
  }),
});

/** How RoPE pairs dimensions. */
export type RopeMode = (typeof ROPE_MODES)[number];

/** A rope over tensor references T. */
export type RopeOp<T> = OpShape<'rope', typeof rope.inputs, typeof rope.params, T>;
