import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, fail, outBytesOf, UNQUANTIZED } from '../op-rules.ts';
import { sameShape } from '../shape.ts';

/**
 * Concatenation along axis 0 of row-major tensors: a [Ra, ...rest] then b [Rb, ...rest] -> [Ra + Rb, ...rest].
 * Same dtype (any dtype but the quantized ones), same trailing shape, rank >= 1; Ra or Rb may be 0. An exact copy of
 * the bytes: the output holds a's bytes then b's. Growing a KV cache on the device that holds it is its use.
 */
export const concat = defineOp({
  id: 'concat',
  doc: "Concatenation along axis 0: a [Ra, ...rest] then b [Rb, ...rest] -> [Ra + Rb, ...rest], an exact copy of a's bytes then b's.",
  batchDoc: 'rows of a plus rows of b (their first dimensions)',
  inputs: {
    /** The leading rows, [Ra, ...rest]. */
    a: { dtypes: UNQUANTIZED, minRank: 1 },
    /** The rows appended after a, [Rb, ...rest], same dtype as a. */
    b: { dtypes: UNQUANTIZED, sameDtypeAs: 'a' },
  },
  params: {},
  map: (op, fn) => ({ op: 'concat', a: fn(op.a, 'a'), b: fn(op.b, 'b') }),
  outputs(op) {
    const rest = op.a.shape.slice(1);
    if (op.b.shape.length !== op.a.shape.length || !sameShape(op.b.shape.slice(1), rest)) {
      fail(
        'concat',
        'b.shape',
        [...op.b.shape],
        `must be [rows, ${rest.join(', ')}] (a.shape [${op.a.shape.join(', ')}] past axis 0)`,
      );
    }
    return [{ dtype: op.a.dtype, shape: [dim(op.a, 0) + dim(op.b, 0), ...rest] }];
  },
  // A copy: memory-bound, bytes in + bytes out.
  work: (op, outputs) => ({
    flops: 0,
    bytes: bytesOf(op.a) + bytesOf(op.b) + outBytesOf(outputs),
    batch: dim(op.a, 0) + dim(op.b, 0),
  }),
});

/** A concat over tensor references T. */
export type ConcatOp<T> = OpShape<'concat', typeof concat.inputs, typeof concat.params, T>;
