// mul: native-rocm/kernels/mul.hip (mul_f32, mul_f16), b broadcast over a's leading dimensions.
import { binaryKernel } from '../kernel-support.ts';

/** The ROCm backend's mul. */
export const mulKernel = binaryKernel('mul');
