// A recorded sequence (graph replay) as the addon's prepareSequence takes it: each step encoded as run() would
// encode it (kernel id, its inputs in the kernel's order, parameters), with value indices in place of buffers.
import { BackendError, byteLengthOf, mapOpTensors, numel, type BoundTensor, type RecordedSequence } from '@tandem/core';
import type { NativeSequenceSpec, NativeSequenceStep } from './addon-api.ts';
import { encodeOp, type EncodeOptions } from './encode-op.ts';
import { BACKEND_NAME } from './hip-errors.ts';

/** The native form of `sequence`; BackendError UNSUPPORTED when a kernel reads a tensor the sequence cannot name. */
export function nativeSequenceSpec(sequence: RecordedSequence, encoding: EncodeOptions): NativeSequenceSpec {
  const steps = sequence.steps.map((step): NativeSequenceStep => {
    // Each tensor the op reads stands for a value; encodeOp hands the same objects back in the kernel's order.
    const reads = new Map<BoundTensor, number>();
    const op = mapOpTensors(step.op, (t): BoundTensor => {
      const bound: BoundTensor = {
        dtype: sequence.values[t.value]?.dtype ?? 'f32',
        shape: t.shape,
        buffer: { backend: BACKEND_NAME, id: 0, byteLength: sequence.byteLengthOf(t.value) },
      };
      reads.set(bound, t.value);
      return bound;
    });
    const call = encodeOp(op, encoding);
    const inputs = call.inputs.map((t) => {
      const value = reads.get(t);
      if (value === undefined)
        throw new BackendError('UNSUPPORTED', BACKEND_NAME, `${step.label}: ${call.kernel} reads a tensor of its own`);
      return value;
    });
    return {
      kernel: call.kernel,
      inputs,
      outputBytes: step.outputs.map((o) => byteLengthOf(o.dtype, numel(o.shape))),
      params: call.params,
      release: step.release,
    };
  });
  return { inputBytes: sequence.inputs.map((_, i) => sequence.byteLengthOf(i)), steps, keep: sequence.keep };
}
