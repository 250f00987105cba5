// add: wgsl/add.wgsl, b broadcast over a's leading dimensions.
import { binaryKernel } from '../kernel-support.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** The WebGPU backend's add. */
export const addKernel = binaryKernel<'add'>(WGSL_KERNELS.add);
