// softmax: native-rocm/kernels/softmax.hip, rows of the last dimension; causalRows is the causal mask's matrix height.
import { dim, lastDim, rowsOf, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ rows: 'dim', cols: 'dim', causalRows: 'dim' });

/** The ROCm backend's softmax. */
export const softmaxKernel: RocmKernel<'softmax'> = {
  natives: { softmax_f32: PARAMS },
  nativeId: () => 'softmax_f32',
  encode: (op) =>
    nativeCall(PARAMS, 'softmax_f32', [op.x], {
      rows: rowsOf(op.x),
      cols: lastDim(op.x),
      causalRows: op.causal ? dim(op.x, -2) : 0,
    }),
};
