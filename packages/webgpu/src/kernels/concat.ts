// concat along axis 0: two buffer-to-buffer copies into the output (a at offset 0, b right after it). Every dtype
// concat accepts is 4 bytes per element for kernels (f16 tensors are widened to f32 around the op: see
// f16-storage.ts), so the offsets are multiples of 4.
import { kernelByteLength } from '../device-layout.ts';
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { copy, type Step } from '../plan.ts';

/** The WebGPU backend's concat: a's rows then b's rows into out; an empty side is no step. */
export const concatKernel: WebGpuKernel<'concat'> = {
  plan(op, outputs) {
    const out = output(outputs, 0, 'concat');
    const aBytes = kernelByteLength(op.a);
    const bBytes = kernelByteLength(op.b);
    const steps: Step[] = [];
    if (aBytes > 0) steps.push(copy(op.a.gpu, out.gpu, aBytes));
    if (bBytes > 0) steps.push(copy(op.b.gpu, out.gpu, bBytes, 0, aBytes));
    return steps;
  },
  copiesOnly: true,
};
