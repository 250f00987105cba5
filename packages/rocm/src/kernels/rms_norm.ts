// rmsNorm: native-rocm/kernels/rms_norm.hip; the weight input is left out when the op has none.
import { lastDim, rowsOf, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ rows: 'dim', n: 'dim', eps: 'number' });

/** The ROCm backend's rmsNorm. */
export const rmsNormKernel: RocmKernel<'rmsNorm'> = {
  natives: { rms_norm_f32: PARAMS },
  nativeId: () => 'rms_norm_f32',
  encode: (op) =>
    nativeCall(PARAMS, 'rms_norm_f32', op.weight === undefined ? [op.x] : [op.x, op.weight], {
      rows: rowsOf(op.x),
      n: lastDim(op.x),
      eps: op.eps,
    }),
};
