// The reference's op dispatcher: an op over host tensors (raw bytes) in, its outputs as host tensors out, through
// the kernel table (kernels/index.ts). This is the oracle: the backend wraps it, and the conformance suite calls it.
import {
  byteLengthOf,
  inferOutputs,
  InvalidArgumentError,
  numel,
  opInputs,
  type Op,
  type OpKind,
  type OpOf,
  type TensorSpec,
} from '@tandem/core';
import type { HostTensor } from './host-tensor.ts';
import { REFERENCE_KERNELS } from './kernels/index.ts';

/** Validates `op` (inferOutputs and byte lengths) and computes its outputs with the float64 reference kernels. */
export function computeReference(op: Op<HostTensor>): HostTensor[] {
  const specs = inferOutputs(op);
  for (const { name, tensor } of opInputs(op)) expectBytes(`${op.op}.${name}`, tensor);
  const results = runKernel(op);
  return specs.map((spec, i) => {
    const data = results[i];
    const expected = byteLengthOf(spec.dtype, numel(spec.shape));
    if (data === undefined || data.byteLength !== expected) {
      throw new Error(
        `reference ${op.op}: output ${i} has ${data?.byteLength ?? 'no'} bytes, expected ${expected} (a bug in the reference)`,
      );
    }
    return { dtype: spec.dtype, shape: [...spec.shape], data };
  });
}

/** Temporary bytes of the reference's kernel for `op`, beside its outputs. O(rank). */
export function referenceScratchBytes<K extends OpKind>(
  op: OpOf<K, TensorSpec>,
  outputs: readonly TensorSpec[],
): number {
  return REFERENCE_KERNELS[op.op].scratchBytes?.(op, outputs) ?? 0;
}

function runKernel<K extends OpKind>(op: OpOf<K, HostTensor>): Uint8Array[] {
  return REFERENCE_KERNELS[op.op].run(op);
}

function expectBytes(argument: string, t: HostTensor): void {
  const expected = byteLengthOf(t.dtype, numel(t.shape));
  if (t.data.byteLength !== expected) {
    throw new InvalidArgumentError(
      `${argument}.data.byteLength`,
      t.data.byteLength,
      `must be ${expected} for ${t.dtype} [${t.shape.join(', ')}]`,
    );
  }
}
