// supportsOp: the capability table, then the device's limits. An op is refused (with the size and the
// limit in the reason) when a binding exceeds maxStorageBufferBindingSize, a buffer maxBufferSize, a grid
// the workgroup count limit, or attention's head dimension the workgroup memory. Cosine targets alone may exceed one
// binding: they are bound in ranges, one dispatch each.
import { checkCapabilities, errorMessage, inferOutputs, numel, opInputs, type Op, type SupportVerdict, type TensorSpec } from '@tandem/core';
import type { DeviceLimits } from './device-context.ts';
import { kernelByteLength } from './device-layout.ts';
import { MATMUL_TILE, QUANTIZED_MATMUL_ROWS } from './kernels.ts';
import { attentionWorkgroupBytes } from './ops/attention.ts';
import { cosineTargetRowsPerBinding, TOP_K_MAX_WORK } from './ops/search.ts';
import { gridFits, STORAGE_OFFSET_ALIGNMENT } from './plan.ts';
import { WEBGPU_CAPABILITIES } from './capabilities.ts';

/** Whether the WebGPU backend can run `op` on a device with these limits and features. */
export function checkWebGpuSupport(op: Op<TensorSpec>, limits: DeviceLimits, features: readonly string[], knownOutputs?: readonly TensorSpec[]): SupportVerdict {
  const table = checkCapabilities(WEBGPU_CAPABILITIES, features, op, knownOutputs);
  if (!table.ok) return table;
  let outputs = knownOutputs;
  if (outputs === undefined) {
    try {
      outputs = inferOutputs(op);
    } catch (error) {
      return { ok: false, reason: errorMessage(error) };
    }
  }
  // concat is buffer-to-buffer copies: nothing is bound, so only maxBufferSize applies.
  const bound = op.op !== 'concat';
  for (const input of opInputs(op)) {
    const refused =
      op.op === 'cosineSimilarity' && input.name === 'targets' ? checkCosineTargets(input.tensor, limits) : checkBufferLimits(op.op, input.name, input.tensor, limits, bound);
    if (refused !== undefined) return refused;
  }
  for (const [i, output] of outputs.entries()) {
    const refused = checkBufferLimits(op.op, `output ${i}`, output, limits, bound);
    if (refused !== undefined) return refused;
  }
  return bound ? checkShapeLimits(op, limits) : { ok: true };
}

/** A refusal if one tensor of an op needs a binding (when `bound`) or a buffer past the device's limits. */
function checkBufferLimits(op: string, name: string, tensor: TensorSpec, limits: DeviceLimits, bound: boolean): SupportVerdict | undefined {
  const bytes = kernelByteLength(tensor);
  if (bound && bytes > limits.maxStorageBufferBindingSize) {
    return refuse(`${op}.${name} needs a ${bytes}-byte storage binding; maxStorageBufferBindingSize is ${limits.maxStorageBufferBindingSize}`);
  }
  if (bytes > limits.maxBufferSize) return refuse(`${op}.${name} needs a ${bytes}-byte buffer; maxBufferSize is ${limits.maxBufferSize}`);
  return undefined;
}

/** Cosine targets may exceed one binding (the planner binds them in aligned ranges) but not one buffer. */
function checkCosineTargets(targets: TensorSpec, limits: DeviceLimits): SupportVerdict | undefined {
  const bytes = kernelByteLength(targets);
  if (bytes > limits.maxBufferSize) return refuse(`cosineSimilarity.targets needs a ${bytes}-byte buffer; maxBufferSize is ${limits.maxBufferSize}`);
  const dim = targets.shape[1] ?? 0;
  if (bytes > limits.maxStorageBufferBindingSize && cosineTargetRowsPerBinding(dim, limits.maxStorageBufferBindingSize) === 0) {
    return refuse(`cosineSimilarity.targets rows of ${dim * 4} bytes cannot be bound in ${STORAGE_OFFSET_ALIGNMENT}-byte-aligned ranges within maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`);
  }
  return undefined;
}

function checkShapeLimits(op: Op<TensorSpec>, limits: DeviceLimits): SupportVerdict {
  switch (op.op) {
    case 'matmul': {
      const m = op.a.shape[0] ?? 0;
      const n = op.b.shape[1] ?? 0;
      const perDim = limits.maxComputeWorkgroupsPerDimension;
      if (Math.ceil(m / MATMUL_TILE) > perDim || Math.ceil(n / MATMUL_TILE) > perDim) {
        return refuse(`matmul of [${m}, ${n}] needs more than ${perDim} workgroups in one dimension`);
      }
      return { ok: true };
    }
    case 'quantizedMatmul': {
      const groups = (op.w.shape[0] ?? 0) * Math.ceil((op.x.shape[0] ?? 0) / QUANTIZED_MATMUL_ROWS);
      return gridFits(groups, limits) ? { ok: true } : refuse(`quantizedMatmul needs ${groups} workgroups`);
    }
    case 'attention': {
      const headDim = op.q.shape[2] ?? 0;
      const bytes = attentionWorkgroupBytes(headDim);
      if (bytes > limits.maxComputeWorkgroupStorageSize) {
        return refuse(`attention with head dimension ${headDim} needs ${bytes} bytes of workgroup memory; maxComputeWorkgroupStorageSize is ${limits.maxComputeWorkgroupStorageSize}`);
      }
      return { ok: true };
    }
    case 'topK': {
      const n = op.x.shape[op.x.shape.length - 1] ?? 0;
      if (op.k * n > TOP_K_MAX_WORK) return refuse(`topK with k = ${op.k} over rows of ${n} is ${op.k * n} comparisons per row; the GPU limit is ${TOP_K_MAX_WORK}`);
      return { ok: true };
    }
    default:
      return elementCountFits(op, limits);
  }
}

function elementCountFits(op: Op<TensorSpec>, limits: DeviceLimits): SupportVerdict {
  const largest = Math.max(0, ...opInputs(op).map((i) => numel(i.tensor.shape)));
  const groups = Math.ceil(largest / 64);
  return gridFits(groups, limits) ? { ok: true } : refuse(`${op.op} on ${largest} elements needs ${groups} workgroups`);
}

function refuse(reason: string): SupportVerdict {
  return { ok: false, reason };
}
