// dequantize: native-rocm/kernels/dequantize.hip (q8_0, q4_0, f16 -> f32).
import { numel } from '@tandem/core';
import type { RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ count: 'dim' });

/** The ROCm backend's dequantize. */
export const dequantizeKernel: RocmKernel<'dequantize'> = {
  natives: { dequantize_q8_0: PARAMS, dequantize_q4_0: PARAMS, dequantize_f16: PARAMS },
  nativeId: (op) => `dequantize_${op.x.dtype}`,
  encode: (op) => nativeCall(PARAMS, `dequantize_${op.x.dtype}`, [op.x], { count: numel(op.x.shape) }),
};
