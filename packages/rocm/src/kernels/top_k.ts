// topK: native-rocm/kernels/top_k.hip, k up to the addon's topKMax.
import { dim, lastDim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ rows: 'dim', n: 'dim', k: 'dim' });

/** The ROCm backend's topK. */
export const topKKernel: RocmKernel<'topK'> = {
  natives: { top_k_f32: PARAMS },
  nativeId: () => 'top_k_f32',
  encode: (op) =>
    nativeCall(PARAMS, 'top_k_f32', [op.x], {
      rows: op.x.shape.length === 1 ? 1 : dim(op.x, 0),
      n: lastDim(op.x),
      k: op.k,
    }),
  refuse: (op, limits) =>
    op.k > limits.native.topKMax ? `topK with k = ${op.k} exceeds ${limits.native.topKMax}` : undefined,
};
