// encodeOp: the kernel ids and parameter names native-rocm/kernels/<op_id>.hip expects, and supportsOp's limits.
import { describe, expect, it } from 'vitest';
import { DeviceLostError, OutOfMemoryError, type BoundTensor, type DType } from '@tandem/core';
import { encodeOp } from './encode-op.ts';
import { HipError, toBackendError } from './hip-errors.ts';
import { checkRocmSupport } from './support.ts';

let nextId = 1;
function t(dtype: DType, shape: number[]): BoundTensor {
  return { dtype, shape, buffer: { backend: 'rocm', id: nextId++, byteLength: 0 } };
}

describe('encodeOp', () => {
  it('maps shapes and parameters by name', () => {
    expect(encodeOp({ op: 'matmul', a: t('f32', [2, 3]), b: t('f32', [3, 5]) })).toMatchObject({
      kernel: 'matmul_f32',
      params: { m: 2, k: 3, n: 5 },
    });
    expect(encodeOp({ op: 'quantizedMatmul', x: t('f32', [1, 64]), w: t('q4_0', [7, 64]) })).toMatchObject({
      kernel: 'quantized_matmul_q4_0',
      params: { m: 1, k: 64, n: 7 },
    });
    expect(encodeOp({ op: 'add', a: t('f16', [4, 8]), b: t('f16', [8]) })).toMatchObject({
      kernel: 'add_f16',
      params: { count: 32, bCount: 8 },
    });
    expect(encodeOp({ op: 'softmax', x: t('f32', [2, 3, 4]), causal: true })).toMatchObject({
      params: { rows: 6, cols: 4, causalRows: 3 },
    });
    expect(encodeOp({ op: 'softmax', x: t('f32', [0, 0]), causal: false })).toMatchObject({
      params: { rows: 0, cols: 0 },
    });
    expect(encodeOp({ op: 'rmsNorm', x: t('f32', [3, 8]), weight: undefined, eps: 1e-5 }).inputs).toHaveLength(1);
    expect(
      encodeOp({ op: 'rope', x: t('f32', [5, 2, 8]), positionOffset: 3, base: 10000, mode: 'neox' }),
    ).toMatchObject({ params: { seq: 5, heads: 2, headDim: 8, positionOffset: 3, neox: 1 } });
    const att = encodeOp({
      op: 'attention',
      q: t('f32', [2, 8, 64]),
      k: t('f32', [9, 2, 64]),
      v: t('f32', [9, 2, 64]),
      causal: true,
      scale: undefined,
    });
    expect(att).toMatchObject({
      kernel: 'attention_f32',
      params: { sq: 2, sk: 9, heads: 8, kvHeads: 2, headDim: 64, causal: 1, scale: 0.125 },
    });
    expect(encodeOp({ op: 'cosineSimilarity', queries: t('f32', [768]), targets: t('f32', [10, 768]) })).toMatchObject({
      params: { queries: 1, targets: 10, dim: 768 },
    });
    expect(encodeOp({ op: 'topK', x: t('f32', [100]), k: 3 })).toMatchObject({
      kernel: 'top_k_f32',
      params: { rows: 1, n: 100, k: 3 },
    });
  });
});

describe('checkRocmSupport', () => {
  // The addon's limits as native-rocm/kernels/kernels.h sets them (native-params.test.ts reads them from the build).
  const native = {
    topKMax: 4096,
    attentionDimsPerLane: 8,
    matmulMaxColumnsF32: 65535 * 128,
    matmulMaxColumnsF16: 65535 * 16,
    cosineWarpQueries: 16,
    quantizedDirectRows: 8,
  };
  const kernels = new Set(['top_k_f32', 'attention_f32', 'matmul_f32']);
  const limits = { warpSize: 32, features: [], native, kernels };
  it('refuses what the kernels cannot do', () => {
    const spec = (dtype: DType, shape: number[]) => ({ dtype, shape });
    expect(checkRocmSupport({ op: 'topK', x: spec('f32', [10000]), k: 5000 }, limits).ok).toBe(false);
    expect(checkRocmSupport({ op: 'topK', x: spec('f32', [10000]), k: 4096 }, limits).ok).toBe(true);
    const att = (d: number) => ({
      op: 'attention' as const,
      q: spec('f32', [1, 1, d]),
      k: spec('f32', [4, 1, d]),
      v: spec('f32', [4, 1, d]),
      causal: false,
      scale: undefined,
    });
    expect(checkRocmSupport(att(256), limits).ok).toBe(true);
    expect(checkRocmSupport(att(320), limits).ok).toBe(false);
    expect(checkRocmSupport(att(320), { ...limits, warpSize: 64 }).ok).toBe(true);
    expect(checkRocmSupport({ op: 'matmul', a: spec('i32', [2, 2]), b: spec('i32', [2, 2]) }, limits).ok).toBe(false);
  });

  it('refuses an op whose native kernel the addon lacks, naming it', () => {
    const spec = (dtype: DType, shape: number[]) => ({ dtype, shape });
    expect(checkRocmSupport({ op: 'silu', x: spec('f32', [4]) }, limits)).toEqual({
      ok: false,
      reason: expect.stringMatching(/silu: the addon has no native kernel silu_f32/),
    });
  });
});

describe('toBackendError', () => {
  const native = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(`x: ${code}`), { code, ...extra });
  it('maps runtime error names onto Tandem errors', () => {
    expect(toBackendError(native('hipErrorOutOfMemory', { requestedBytes: 64 }), 'upload')).toBeInstanceOf(
      OutOfMemoryError,
    );
    expect(toBackendError(native('cudaErrorMemoryAllocation'), 'upload', 8)).toMatchObject({ requestedBytes: 8 });
    expect(toBackendError(native('cudaErrorIllegalAddress'), 'matmul')).toBeInstanceOf(DeviceLostError);
    const other = toBackendError(native('hipErrorInvalidValue'), 'matmul');
    expect(other).toBeInstanceOf(HipError);
    expect(other).toMatchObject({ code: 'HIP_ERROR', backend: 'rocm', hipError: 'hipErrorInvalidValue' });
  });
});
