// mul: wgsl/mul.wgsl, b broadcast over a's leading dimensions.
import { binaryKernel } from '../kernel-support.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** The WebGPU backend's mul. */
export const mulKernel = binaryKernel<'mul'>(WGSL_KERNELS.mul);
