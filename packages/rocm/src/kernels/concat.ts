// concat: native-rocm/kernels/concat.hip, device-to-device copies on the backend's stream; element counts, as bytes
// may pass 2^31.
import { numel } from '@tandem/core';
import type { RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ aCount: 'dim', bCount: 'dim', elemBytes: 'dim' });

/** The ROCm backend's concat. */
export const concatKernel: RocmKernel<'concat'> = {
  natives: { concat: PARAMS },
  nativeId: () => 'concat',
  encode: (op) =>
    nativeCall(PARAMS, 'concat', [op.a, op.b], {
      aCount: numel(op.a.shape),
      bCount: numel(op.b.shape),
      elemBytes: op.a.dtype === 'f16' ? 2 : 4,
    }),
};
