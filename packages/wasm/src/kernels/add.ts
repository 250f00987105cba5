// add: a + b, b repeating over a's leading dimensions (wasm-kernels/add.ts).
import { binaryKernel } from '../kernel-support.ts';

/** The wasm backend's add. */
export const addKernel = binaryKernel<'add'>((k) => k.add_f32);
