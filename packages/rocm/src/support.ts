// supportsOp for the ROCm backend: the capability table (derived from the kernel table), the addon's native kernel
// for the op, then that kernel's limits on this device (the addon's limits and the warp size).
import { checkCapabilities, type Op, type OpKind, type OpOf, type SupportVerdict, type TensorSpec } from '@tandem/core';
import { ROCM_CAPABILITIES } from './capabilities.ts';
import { BUILD_COMMAND } from './load-addon.ts';
import type { DeviceLimits } from './kernel-support.ts';
import { ROCM_KERNELS } from './kernel-table.ts';

export type { DeviceLimits } from './kernel-support.ts';

/** Whether the ROCm backend can run `op` on a device with these limits. */
export function checkRocmSupport(op: Op<TensorSpec>, limits: DeviceLimits): SupportVerdict {
  const table = checkCapabilities(ROCM_CAPABILITIES, op);
  if (!table.ok) return table;
  const refused = kernelRefusal(op, limits);
  return refused === undefined ? { ok: true } : { ok: false, reason: refused };
}

function kernelRefusal<K extends OpKind>(op: OpOf<K, TensorSpec>, limits: DeviceLimits): string | undefined {
  const kernel = ROCM_KERNELS[op.op];
  if (kernel === undefined) return `${op.op} has no ROCm kernel`;
  const native = kernel.nativeId(op);
  if (!limits.kernels.has(native))
    return `${op.op}: the addon has no native kernel ${native} (rebuild it: ${BUILD_COMMAND})`;
  return kernel.refuse?.(op, limits);
}
