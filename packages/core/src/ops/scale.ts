import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, expectFinite, FLOATS, outBytesOf, outElemsOf, rows } from '../op-rules.ts';

/** x * factor. */
export const scale = defineOp({
  id: 'scale',
  doc: 'x * factor.',
  batchDoc: 'rows of x (every dimension but the last)',
  inputs: {
    /** Input. */
    x: { dtypes: FLOATS },
  },
  params: {
    /** Multiplier. */
    factor: 'number',
  },
  map: (op, fn) => ({ op: 'scale', x: fn(op.x, 'x'), factor: op.factor }),
  outputs(op) {
    expectFinite('scale', 'factor', op.factor);
    return [{ dtype: op.x.dtype, shape: op.x.shape }];
  },
  work: (op, outputs) => ({
    flops: outElemsOf(outputs),
    bytes: bytesOf(op.x) + outBytesOf(outputs),
    batch: rows(op.x),
  }),
});

/** A scale over tensor references T. */
export type ScaleOp<T> = OpShape<'scale', typeof scale.inputs, typeof scale.params, T>;
