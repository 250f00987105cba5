// mul: a * b, b repeating over a's leading dimensions (wasm-kernels/mul.ts).
import { binaryKernel } from '../kernel-support.ts';

/** The wasm backend's mul. */
export const mulKernel = binaryKernel<'mul'>((k) => k.mul_f32);
