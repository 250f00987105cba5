import { defineOp, type OpShape } from '../op-definition.ts';
import { fail, FLOATS } from '../op-rules.ts';

/** f32 (or f16) matrix product: a [M, K] x b [K, N] -> [M, N]; K = 0 gives zeros. */
export const matmul = defineOp({
  id: 'matmul',
  doc: 'f32 (or f16) matrix product: a [M, K] x b [K, N] -> [M, N]; K = 0 gives zeros.',
  batchDoc: 'rows of a (M)',
  inputs: {
    /** Left operand, [M, K]. */
    a: { dtypes: FLOATS, ranks: [2] },
    /** Right operand, [K, N], same dtype as a. */
    b: { dtypes: FLOATS, sameDtypeAs: 'a', ranks: [2] },
  },
  params: {},
  map: (op, fn) => ({ op: 'matmul', a: fn(op.a, 'a'), b: fn(op.b, 'b') }),
  outputs(op) {
    const k = op.a.shape[1] ?? 1;
    const k2 = op.b.shape[0] ?? 1;
    if (k2 !== k) fail('matmul', 'b.shape[0]', k2, `must equal a.shape[1] (${k})`);
    return [{ dtype: op.a.dtype, shape: [op.a.shape[0] ?? 1, op.b.shape[1] ?? 1] }];
  },
  work(op) {
    // From the three dimensions (not numel of each shape): matmul is the engine's hottest small call.
    const m = op.a.shape[0] ?? 1;
    const k = op.a.shape[1] ?? 1;
    const n = op.b.shape[1] ?? 1;
    const elementBytes = op.a.dtype === 'f16' ? 2 : 4;
    return { flops: 2 * m * k * n, bytes: elementBytes * (m * k + k * n + m * n), batch: m };
  },
});

/** A matmul over tensor references T. */
export type MatmulOp<T> = OpShape<'matmul', typeof matmul.inputs, typeof matmul.params, T>;
