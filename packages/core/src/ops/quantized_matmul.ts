import { QUANT_BLOCK } from '../dtype.ts';
import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, F32, fail, outBytesOf } from '../op-rules.ts';

/** Quantized matrix product, ggml's mul_mat: x [M, K] f32 times weights w [N, K] (q8_0 / q4_0 rows) -> [M, N]. */
export const quantizedMatmul = defineOp({
  id: 'quantizedMatmul',
  doc: "Quantized matrix product, ggml's mul_mat: x [M, K] f32 times weights w [N, K] (q8_0 / q4_0 rows) -> [M, N].",
  batchDoc: "rows of x (M; a decode step's mat-vec is batch 1)",
  inputs: {
    /** Activations, f32 [M, K]; K a multiple of 32. */
    x: { dtypes: F32, ranks: [2] },
    /** Weights, q8_0 or q4_0, [N, K]: one quantized row per output column. */
    w: { dtypes: ['q8_0', 'q4_0'], ranks: [2] },
  },
  params: {},
  map: (op, fn) => ({ op: 'quantizedMatmul', x: fn(op.x, 'x'), w: fn(op.w, 'w') }),
  outputs(op) {
    const k = dim(op.x, 1);
    if (dim(op.w, 1) !== k) fail('quantizedMatmul', 'w.shape[1]', dim(op.w, 1), `must equal x.shape[1] (${k})`);
    if (k % QUANT_BLOCK !== 0)
      fail('quantizedMatmul', 'x.shape[1]', k, `must be a multiple of ${QUANT_BLOCK} (quantization block)`);
    return [{ dtype: 'f32', shape: [dim(op.x, 0), dim(op.w, 0)] }];
  },
  work: (op, outputs) => ({
    flops: 2 * dim(op.x, 0) * dim(op.x, 1) * dim(op.w, 0),
    bytes: bytesOf(op.x) + bytesOf(op.w) + outBytesOf(outputs),
    batch: dim(op.x, 0),
  }),
});

/** A quantizedMatmul over tensor references T. */
export type QuantizedMatmulOp<T> = OpShape<
  'quantizedMatmul',
  typeof quantizedMatmul.inputs,
  typeof quantizedMatmul.params,
  T
>;
