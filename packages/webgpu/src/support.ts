// supportsOp: the capability table (derived from the kernel table), then the device's limits. An op is refused
// (with the size and the limit in the reason) when a binding exceeds maxStorageBufferBindingSize, a buffer
// maxBufferSize, or its kernel's own limit (grid, workgroup memory, work: the kernel's `refuse`, else its grid of
// one invocation per element). An input the kernel binds in ranges (cosine targets) is the kernel's to check.
import {
  checkCapabilities,
  errorMessage,
  inferOutputs,
  opInputs,
  type Op,
  type OpKind,
  type OpOf,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import { WEBGPU_CAPABILITIES } from './capabilities.ts';
import type { DeviceLimits } from './device-context.ts';
import { kernelByteLength } from './device-layout.ts';
import { elementCountRefusal } from './kernel-support.ts';
import { WEBGPU_KERNELS } from './kernel-table.ts';

/** Whether the WebGPU backend can run `op` on a device with these limits. */
export function checkWebGpuSupport(
  op: Op<TensorSpec>,
  limits: DeviceLimits,
  knownOutputs?: readonly TensorSpec[],
): SupportVerdict {
  const table = checkCapabilities(WEBGPU_CAPABILITIES, op);
  if (!table.ok) return table;
  let outputs = knownOutputs;
  if (outputs === undefined) {
    try {
      outputs = inferOutputs(op);
    } catch (error) {
      return { ok: false, reason: errorMessage(error) };
    }
  }
  const kernel = WEBGPU_KERNELS[op.op];
  // Buffer-to-buffer copies bind nothing, so only maxBufferSize applies.
  const bound = kernel?.copiesOnly !== true;
  for (const input of opInputs(op)) {
    if (input.name === kernel?.rangedInput) continue;
    const refused = bufferRefusal(op.op, input.name, input.tensor, limits, bound);
    if (refused !== undefined) return refuse(refused);
  }
  for (const [i, output] of outputs.entries()) {
    const refused = bufferRefusal(op.op, `output ${i}`, output, limits, bound);
    if (refused !== undefined) return refuse(refused);
  }
  if (!bound) return { ok: true };
  const refused = kernel?.refuse === undefined ? elementCountRefusal(op, limits) : kernelRefusal(op, limits);
  return refused === undefined ? { ok: true } : refuse(refused);
}

/** Why one tensor of an op needs a binding (when `bound`) or a buffer past the device's limits, if it does. */
function bufferRefusal(
  op: string,
  name: string,
  tensor: TensorSpec,
  limits: DeviceLimits,
  bound: boolean,
): string | undefined {
  const bytes = kernelByteLength(tensor);
  if (bound && bytes > limits.maxStorageBufferBindingSize) {
    return `${op}.${name} needs a ${bytes}-byte storage binding; maxStorageBufferBindingSize is ${limits.maxStorageBufferBindingSize}`;
  }
  if (bytes > limits.maxBufferSize)
    return `${op}.${name} needs a ${bytes}-byte buffer; maxBufferSize is ${limits.maxBufferSize}`;
  return undefined;
}

/** The kernel's own refusal (grid, workgroup memory, work), if it has one and refuses. */
function kernelRefusal<K extends OpKind>(op: OpOf<K, TensorSpec>, limits: DeviceLimits): string | undefined {
  return WEBGPU_KERNELS[op.op]?.refuse?.(op, limits);
}

function refuse(reason: string): SupportVerdict {
  return { ok: false, reason };
}
