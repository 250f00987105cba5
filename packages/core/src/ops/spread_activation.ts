import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, expectFinite, F32, fail, rows } from '../op-rules.ts';

/**
 * Spreading activation over a weighted CSR graph, `iterations` times, from one seed vector [nodes] or from each of a
 * batch of them [batch, nodes] (independently; the output has initial's shape):
 *   next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w(i,j) * a[i]
 * The engine checks the CSR arrays before any backend runs them (csr-check.ts), once per (rowPtr, colIdx) pair.
 */
export const spreadActivation = defineOp({
  id: 'spreadActivation',
  doc: 'Spreading activation over a weighted CSR graph: next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w(i,j) * a[i], iterated.',
  batchDoc: 'seed vectors (rows of initial: 1 for an initial of shape [nodes])',
  inputs: {
    /** CSR row pointers, u32 [nodes + 1]. */
    rowPtr: { dtypes: ['u32'], ranks: [1] },
    /** CSR column (target node) indices, u32 [edges]. */
    colIdx: { dtypes: ['u32'], ranks: [1] },
    /** Edge weights, f32 [edges]. */
    weights: { dtypes: F32, ranks: [1] },
    /** Starting activation, f32 [nodes], or a batch of seed vectors [batch, nodes] spread independently. */
    initial: { dtypes: F32, ranks: [1, 2] },
  },
  params: {
    /** Multiplier per hop, 0 < decay <= 1. */
    decay: 'number',
    /** Nodes below this activation do not spread. */
    threshold: 'number',
    /** Hops, >= 1. */
    iterations: 'number',
  },
  map: (op, fn) => ({
    op: 'spreadActivation',
    rowPtr: fn(op.rowPtr, 'rowPtr'),
    colIdx: fn(op.colIdx, 'colIdx'),
    weights: fn(op.weights, 'weights'),
    initial: fn(op.initial, 'initial'),
    decay: op.decay,
    threshold: op.threshold,
    iterations: op.iterations,
  }),
  outputs(op) {
    const nodes = dim(op.initial, -1);
    const last = op.initial.shape.length - 1;
    if (dim(op.rowPtr, 0) !== nodes + 1)
      fail(
        'spreadActivation',
        'rowPtr.shape[0]',
        dim(op.rowPtr, 0),
        `must be initial.shape[${last}] + 1 (${nodes + 1})`,
      );
    if (dim(op.weights, 0) !== dim(op.colIdx, 0))
      fail(
        'spreadActivation',
        'weights.shape[0]',
        dim(op.weights, 0),
        `must equal colIdx.shape[0] (${dim(op.colIdx, 0)})`,
      );
    if (!(op.decay > 0 && op.decay <= 1)) fail('spreadActivation', 'decay', op.decay, 'must be in (0, 1]');
    expectFinite('spreadActivation', 'threshold', op.threshold);
    if (!Number.isInteger(op.iterations) || op.iterations < 1 || op.iterations > 1000)
      fail('spreadActivation', 'iterations', op.iterations, 'must be an integer in [1, 1000]');
    return [{ dtype: 'f32', shape: op.initial.shape }];
  },
  work(op) {
    const edges = dim(op.colIdx, 0);
    const seeds = rows(op.initial);
    return {
      flops: 2 * edges * op.iterations * seeds,
      bytes: ((bytesOf(op.colIdx) + bytesOf(op.weights)) * seeds + bytesOf(op.initial) * 2) * op.iterations,
      batch: seeds,
    };
  },
});

/** A spreadActivation over tensor references T. */
export type SpreadActivationOp<T> = OpShape<
  'spreadActivation',
  typeof spreadActivation.inputs,
  typeof spreadActivation.params,
  T
>;
