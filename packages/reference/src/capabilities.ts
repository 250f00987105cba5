// What the reference runs: every op, on every dtype of its first input that core's inferOutputs accepts.
import { OP_KINDS, type Capability, type DType, type OpKind } from '@tandem/core';

/** Dtypes of each op's first input (the one checkCapabilities looks at); a Record so a new op must be listed. */
const FIRST_INPUT_DTYPES: Readonly<Record<OpKind, readonly DType[]>> = {
  matmul: ['f32', 'f16'],
  quantizedMatmul: ['f32'], // x; the weights may be q8_0 or q4_0
  dequantize: ['q8_0', 'q4_0', 'f16'],
  add: ['f32', 'f16'],
  mul: ['f32', 'f16'],
  scale: ['f32', 'f16'],
  softmax: ['f32'],
  rmsNorm: ['f32'],
  rope: ['f32'],
  silu: ['f32'],
  swiglu: ['f32'],
  attention: ['f32'],
  cosineSimilarity: ['f32'],
  topK: ['f32'],
  spreadActivation: ['u32'], // rowPtr
  concat: ['f32', 'f16', 'i32', 'u32'],
};

/** The reference backend's capability table: no size limits, no device features. */
export const REFERENCE_CAPABILITIES: readonly Capability[] = OP_KINDS.map((op) => ({ op, dtypes: FIRST_INPUT_DTYPES[op] }));
