import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, F32, fail, lastDim, outBytesOf, rows } from '../op-rules.ts';
import { numel } from '../shape.ts';

/** The k largest values of each row, descending; ties go to the lower index, NaN ranks below -inf. */
export const topK = defineOp({
  id: 'topK',
  doc: 'The k largest values of each row, descending, and their indices; ties go to the lower index, NaN ranks below -inf.',
  batchDoc: 'rows of x (every dimension but the last)',
  inputs: {
    /** Input [rows, N] (or [N]). */
    x: { dtypes: F32, ranks: [1, 2] },
  },
  params: {
    /** How many to keep, 1 <= k <= N. */
    k: 'number',
  },
  map: (op, fn) => ({ op: 'topK', x: fn(op.x, 'x'), k: op.k }),
  outputs(op) {
    const n = lastDim(op.x);
    if (!Number.isInteger(op.k) || op.k < 1 || op.k > n)
      fail('topK', 'k', op.k, `must be an integer in [1, ${n}] (row length)`);
    const count = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
    return [
      { dtype: 'f32', shape: [count, op.k] },
      { dtype: 'i32', shape: [count, op.k] },
    ];
  },
  work: (op, outputs) => ({
    flops: numel(op.x.shape) * Math.max(1, Math.log2(op.k + 1)),
    bytes: bytesOf(op.x) + 2 * outBytesOf(outputs),
    batch: rows(op.x),
  }),
});

/** A topK over tensor references T. */
export type TopKOp<T> = OpShape<'topK', typeof topK.inputs, typeof topK.params, T>;
