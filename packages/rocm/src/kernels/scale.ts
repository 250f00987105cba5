// scale: native-rocm/kernels/scale.hip (scale_f32, scale_f16).
import { numel } from '@tandem/core';
import type { RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ count: 'dim', factor: 'number' });

/** The ROCm backend's scale. */
export const scaleKernel: RocmKernel<'scale'> = {
  natives: { scale_f32: PARAMS, scale_f16: PARAMS },
  nativeId: (op) => `scale_${op.x.dtype}`,
  encode: (op) => nativeCall(PARAMS, `scale_${op.x.dtype}`, [op.x], { count: numel(op.x.shape), factor: op.factor }),
};
