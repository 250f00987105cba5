// swiglu: native-rocm/kernels/swiglu.hip, silu(gate) * up.
import { numel } from '@tandem/core';
import type { RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ count: 'dim' });

/** The ROCm backend's swiglu. */
export const swigluKernel: RocmKernel<'swiglu'> = {
  natives: { swiglu_f32: PARAMS },
  nativeId: () => 'swiglu_f32',
  encode: (op) => nativeCall(PARAMS, 'swiglu_f32', [op.gate, op.up], { count: numel(op.gate.shape) }),
};
