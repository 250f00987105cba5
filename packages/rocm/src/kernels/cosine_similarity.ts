// cosineSimilarity: native-rocm/kernels/cosine_similarity.hip; past cosineWarpQueries queries it runs as an f32
// matmul, with that grid's column limit on the targets.
import { dim, lastDim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ queries: 'dim', targets: 'dim', dim: 'dim' });

/** The ROCm backend's cosineSimilarity. */
export const cosineSimilarityKernel: RocmKernel<'cosineSimilarity'> = {
  natives: { cosine_similarity_f32: PARAMS },
  nativeId: () => 'cosine_similarity_f32',
  encode: (op) =>
    nativeCall(PARAMS, 'cosine_similarity_f32', [op.queries, op.targets], {
      queries: op.queries.shape.length === 1 ? 1 : dim(op.queries, 0),
      targets: dim(op.targets, 0),
      dim: lastDim(op.queries),
    }),
  refuse(op, limits) {
    const q = op.queries.shape.length === 1 ? 1 : (op.queries.shape[0] ?? 1);
    const t = op.targets.shape[0] ?? 0;
    return q > limits.native.cosineWarpQueries && t > limits.native.matmulMaxColumnsF32
      ? `cosineSimilarity of ${q} queries x ${t} targets exceeds the grid limit`
      : undefined;
  },
};
