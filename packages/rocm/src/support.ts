// supportsOp for the ROCm backend: the capability table, then the limits the kernels have on this device.
import { checkCapabilities, type Op, type SupportVerdict, type TensorSpec } from '@tandem/core';
import { ATTENTION_DIMS_PER_LANE, MATMUL_MAX_N, ROCM_CAPABILITIES, TOP_K_MAX } from './capabilities.ts';

/** What the limits depend on. */
export interface DeviceLimits {
  /** Threads per warp of the device (32 before init: the stricter case). */
  readonly warpSize: number;
  /** describe().features. */
  readonly features: readonly string[];
}

/** Above this many queries cosineSimilarity runs as a matmul (cosine_similarity.hip, kWarpQueryLimit). */
const COSINE_WARP_QUERIES = 16;
/** Above this many rows quantizedMatmul dequantizes and runs a matmul (quantized_matmul.hip, kDirectMaxRows). */
const QUANTIZED_DIRECT_ROWS = 8;

function lastDim(t: TensorSpec): number {
  return t.shape[t.shape.length - 1] ?? 1;
}

/** Whether the ROCm backend can run `op` on a device with these limits. */
export function checkRocmSupport(op: Op<TensorSpec>, limits: DeviceLimits, outputs?: readonly TensorSpec[]): SupportVerdict {
  const table = checkCapabilities(ROCM_CAPABILITIES, limits.features, op, outputs);
  if (!table.ok) return table;
  switch (op.op) {
    case 'matmul': {
      const n = lastDim(op.b);
      const max = op.a.dtype === 'f16' ? MATMUL_MAX_N.f16 : MATMUL_MAX_N.f32;
      return n > max ? { ok: false, reason: `matmul with ${n} output columns exceeds the grid limit (${max})` } : { ok: true };
    }
    case 'quantizedMatmul': {
      const m = op.x.shape[0] ?? 1;
      const n = op.w.shape[0] ?? 1;
      return m > QUANTIZED_DIRECT_ROWS && n > MATMUL_MAX_N.f32 ? { ok: false, reason: `quantizedMatmul with ${n} output columns exceeds the grid limit` } : { ok: true };
    }
    case 'cosineSimilarity': {
      const q = op.queries.shape.length === 1 ? 1 : (op.queries.shape[0] ?? 1);
      const t = op.targets.shape[0] ?? 0;
      return q > COSINE_WARP_QUERIES && t > MATMUL_MAX_N.f32 ? { ok: false, reason: `cosineSimilarity of ${q} queries x ${t} targets exceeds the grid limit` } : { ok: true };
    }
    case 'attention': {
      const d = lastDim(op.q);
      const max = ATTENTION_DIMS_PER_LANE * limits.warpSize;
      return d > max ? { ok: false, reason: `attention head dimension ${d} exceeds ${max} on this device` } : { ok: true };
    }
    case 'topK':
      return op.k > TOP_K_MAX ? { ok: false, reason: `topK with k = ${op.k} exceeds ${TOP_K_MAX}` } : { ok: true };
    default:
      return { ok: true };
  }
}
