// add: native-rocm/kernels/add.hip (add_f32, add_f16), b broadcast over a's leading dimensions.
import { binaryKernel } from '../kernel-support.ts';

/** The ROCm backend's add. */
export const addKernel = binaryKernel('add');
