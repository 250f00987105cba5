// An op over bound tensors as a native call, through the kernel table (kernels/index.ts): kernel id, input buffers
// in the kernel's order, and its parameters (native-rocm/kernels/<op_id>.hip reads the same names).
import { BackendError, type BoundTensor, type OpKind, type OpOf } from '@tandem/core';
import { BACKEND_NAME } from './hip-errors.ts';
import type { EncodeOptions } from './kernel-support.ts';
import { ROCM_KERNELS } from './kernel-table.ts';
import type { NativeCall } from './native-params.ts';

export type { EncodeOptions, QuantizedActivations } from './kernel-support.ts';
export type { NativeCall } from './native-params.ts';

/** The native call for an op (shapes already validated by inferOutputs); an op without a kernel is an error. */
export function encodeOp<K extends OpKind>(op: OpOf<K, BoundTensor>, options: EncodeOptions = {}): NativeCall {
  const kernel = ROCM_KERNELS[op.op];
  if (kernel === undefined) throw new BackendError('UNSUPPORTED', BACKEND_NAME, `${op.op} has no ROCm kernel`);
  return kernel.encode(op, options);
}
