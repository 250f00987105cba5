// What the ROCm backend runs, as data (ops.ts's order): dtypes of each op's first input. Limits that depend on
// the device (attention head size, grid sizes) are checked by supportsOp in support.ts.
import type { Capability } from '@tandem/core';

/** Ops and dtypes of the ROCm (HIP) backend; one native kernel file per op family in native-rocm/kernels/. */
export const ROCM_CAPABILITIES: readonly Capability[] = [
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
  { op: 'concat', dtypes: ['f32', 'f16', 'i32', 'u32'] }, // device-to-device copies (native-rocm/src/op_table.cc)
];

/** Largest k of topK (native-rocm/kernels/kernels.h, kTopKMax). */
export const TOP_K_MAX = 4096;

/** Head dimensions up to this many per warp lane run in the attention kernel (attention.hip, kMaxPerLane). */
export const ATTENTION_DIMS_PER_LANE = 8;

/** Grid limit on the second dimension (65535 blocks) times the matmul tile width (128 for f32, 16 for f16). */
export const MATMUL_MAX_N = { f32: 65535 * 128, f16: 65535 * 16 } as const;
