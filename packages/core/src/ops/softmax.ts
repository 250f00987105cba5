import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, F32, fail, outBytesOf, outElemsOf, rows } from '../op-rules.ts';

/** Row-wise softmax over the last dimension; rows that are entirely -inf (or masked) give zeros. */
export const softmax = defineOp({
  id: 'softmax',
  doc: 'Row-wise softmax over the last dimension; rows that are entirely -inf (or masked) give zeros.',
  batchDoc: 'rows of x (every dimension but the last)',
  inputs: {
    /** Input [..., rows, cols]. */
    x: { dtypes: F32, minRank: 1 },
  },
  params: {
    /** Causal mask: row r sees columns c <= r + (cols - rows); the rest are treated as -inf. */
    causal: 'boolean',
  },
  map: (op, fn) => ({ op: 'softmax', x: fn(op.x, 'x'), causal: op.causal }),
  outputs(op) {
    if (op.causal && op.x.shape.length < 2)
      fail('softmax', 'x.shape', [...op.x.shape], 'must have rank >= 2 with causal: true');
    return [{ dtype: 'f32', shape: op.x.shape }];
  },
  work: (op, outputs) => ({
    flops: outElemsOf(outputs) * 5,
    bytes: bytesOf(op.x) + outBytesOf(outputs),
    batch: rows(op.x),
  }),
});

/** A softmax over tensor references T. */
export type SoftmaxOp<T> = OpShape<'softmax', typeof softmax.inputs, typeof softmax.params, T>;
