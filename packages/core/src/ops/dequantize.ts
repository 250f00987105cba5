import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, outBytesOf, outElemsOf, rows } from '../op-rules.ts';

/** q8_0 / q4_0 / f16 -> f32, same shape. */
export const dequantize = defineOp({
  id: 'dequantize',
  doc: 'q8_0 / q4_0 / f16 -> f32, same shape.',
  batchDoc: 'rows of x (every dimension but the last)',
  inputs: {
    /** The tensor to expand. */
    x: { dtypes: ['q8_0', 'q4_0', 'f16'] },
  },
  params: {},
  map: (op, fn) => ({ op: 'dequantize', x: fn(op.x, 'x') }),
  outputs: (op) => [{ dtype: 'f32', shape: op.x.shape }],
  work: (op, outputs) => ({
    flops: outElemsOf(outputs),
    bytes: bytesOf(op.x) + outBytesOf(outputs),
    batch: rows(op.x),
  }),
});

/** A dequantize over tensor references T. */
export type DequantizeOp<T> = OpShape<'dequantize', typeof dequantize.inputs, typeof dequantize.params, T>;
