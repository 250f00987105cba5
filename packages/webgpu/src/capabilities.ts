// What the WebGPU backend runs, as data: dtypes of each op's first input (ops.ts's order).
import type { Capability } from '@tandem/core';

/** Ops and dtypes of the WebGPU backend; f16 runs on every adapter (stored as binary16, computed in f32: device-layout.ts). */
export const WEBGPU_CAPABILITIES: readonly Capability[] = [
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
