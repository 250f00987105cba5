// What the wasm backend runs, as data (checked by core's checkCapabilities against an op's first input).
import type { Capability } from '@tandem/core';

/**
 * Every op of core's OP_KINDS with the dtypes op-info.ts accepts for its first input. f16 matmul / add / mul / scale
 * are computed in f32 (inputs widened exactly, one rounding to f16 at the end), so they are at least as accurate
 * as f16 arithmetic. quantizedMatmul's first input is the f32 activations; its weights may be q8_0 or q4_0.
 */
export const WASM_CAPABILITIES: readonly Capability[] = [
  { op: 'matmul', dtypes: ['f32', 'f16'] },
  { op: 'quantizedMatmul', dtypes: ['f32'] },
  { op: 'dequantize', dtypes: ['q8_0', 'q4_0', 'f16'] },
  { op: 'add', dtypes: ['f32', 'f16'] },
  { op: 'mul', dtypes: ['f32', 'f16'] },
  { op: 'scale', dtypes: ['f32', 'f16'] },
  { op: 'softmax', dtypes: ['f32'] },
  { op: 'rmsNorm', dtypes: ['f32'] },
  { op: 'rope', dtypes: ['f32'] },
  { op: 'silu', dtypes: ['f32'] },
  { op: 'swiglu', dtypes: ['f32'] },
  { op: 'attention', dtypes: ['f32'] },
  { op: 'cosineSimilarity', dtypes: ['f32'] },
  { op: 'topK', dtypes: ['f32'] },
  { op: 'spreadActivation', dtypes: ['u32'] },
  { op: 'concat', dtypes: ['f32', 'f16', 'i32', 'u32'] },
];
