// concat along axis 0: two buffer-to-buffer copies into the output (a at offset 0, b right after it). Every
// dtype concat accepts is 4 bytes per element on the device (f16 is held as f32), so the offsets are multiples of 4.
import type { ConcatOp } from '@tandem/core';
import { deviceByteLength } from '../device-layout.ts';
import { copy, type DeviceTensor, type Step } from '../plan.ts';

/** a's rows then b's rows into out; an empty side is no step. */
export function planConcat(op: ConcatOp<DeviceTensor>, out: DeviceTensor): Step[] {
  const aBytes = deviceByteLength(op.a);
  const bBytes = deviceByteLength(op.b);
  const steps: Step[] = [];
  if (aBytes > 0) steps.push(copy(op.a.gpu, out.gpu, aBytes));
  if (bBytes > 0) steps.push(copy(op.b.gpu, out.gpu, bBytes, 0, aBytes));
  return steps;
}
