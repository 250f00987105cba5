import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, F32, fail, lastDim, outBytesOf, outElemsOf, rows } from '../op-rules.ts';

/**
 * Cosine similarity of each query against each target: [Q, D] x [T, D] -> [Q, T]. Every backend follows these rules
 * (the reference in float64 defines them; test/conformance/cases/search.ts checks them):
 * 1. a NaN anywhere in the query or the target -> NaN;
 * 2. else a zero vector (every entry +-0) on either side -> 0;
 * 3. else an infinity in either vector -> NaN (such a vector has no direction);
 * 4. else q . t / (|q| |t|), independent of the vectors' lengths: entries from 1e-30 to 3e38 score as unit vectors
 *    do (f32 kernels recompute a row whose f32 sum of squares under- or overflows, scaled by a power of two).
 * GPUs may flush subnormal entries to zero, so a row of only subnormals may count as a zero vector there.
 */
export const cosineSimilarity = defineOp({
  id: 'cosineSimilarity',
  doc: 'Cosine similarity of each query against each target: [Q, D] x [T, D] -> [Q, T]; a NaN in either vector scores NaN, a zero vector 0, an infinite one NaN.',
  batchDoc: 'query rows (Q; 1 for a single query [D], so one query against a large corpus is batch 1)',
  inputs: {
    /** Queries [Q, D] (or one query [D]). */
    queries: { dtypes: F32, ranks: [1, 2] },
    /** Targets [T, D]. */
    targets: { dtypes: F32, ranks: [2] },
  },
  params: {},
  map: (op, fn) => ({ op: 'cosineSimilarity', queries: fn(op.queries, 'queries'), targets: fn(op.targets, 'targets') }),
  outputs(op) {
    if (lastDim(op.queries) !== dim(op.targets, 1)) {
      fail(
        'cosineSimilarity',
        'targets.shape[1]',
        dim(op.targets, 1),
        `must equal the query dimension (${lastDim(op.queries)})`,
      );
    }
    const q = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
    return [{ dtype: 'f32', shape: [q, dim(op.targets, 0)] }];
  },
  work: (op, outputs) => ({
    flops: 2 * outElemsOf(outputs) * lastDim(op.targets),
    bytes: bytesOf(op.queries) + bytesOf(op.targets) + outBytesOf(outputs),
    batch: rows(op.queries),
  }),
});

/** A cosineSimilarity over tensor references T. */
export type CosineSimilarityOp<T> = OpShape<
  'cosineSimilarity',
  typeof cosineSimilarity.inputs,
  typeof cosineSimilarity.params,
  T
>;
