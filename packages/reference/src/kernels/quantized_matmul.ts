// quantizedMatmul: ggml's mul_mat with quantized weights, x [m, k] f32 times w [n, k] (one q8_0 / q4_0 row per
// output column) -> [m, n]. The weights are expanded exactly (q * d is exact in f32) and the activations stay
// f32 (no q8 re-quantization of x, unlike ggml's CPU path); dot products accumulate in float64.
import { dequantizeFrom, InvalidArgumentError, isQuantized, QUANT_BLOCK, type QuantizedDType } from '@tandem/core';
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** out[i, j] = sum_p x[i, p] * dequantize(w)[j, p]; k must be a multiple of 32. */
export function quantizedMatmul(
  x: Float32Array,
  w: Uint8Array,
  dtype: QuantizedDType,
  m: number,
  k: number,
  n: number,
): Float32Array {
  expectCount('quantizedMatmul.m', m);
  expectCount('quantizedMatmul.n', n);
  expectCount('quantizedMatmul.k', k);
  if (k % QUANT_BLOCK !== 0)
    throw new InvalidArgumentError('quantizedMatmul.k', k, `must be a multiple of ${QUANT_BLOCK}`);
  expectLength('quantizedMatmul.x', x, m * k);
  const weights = dequantizeFrom(dtype, w, n * k);
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += (x[i * k + p] ?? 0) * (weights[j * k + p] ?? 0);
      out[i * n + j] = sum;
    }
  }
  return out;
}

/** The reference's quantizedMatmul (the weights expanded to f32 scratch). */
export const quantizedMatmulKernel: ReferenceKernel<'quantizedMatmul'> = {
  run(op) {
    const wType = op.w.dtype;
    if (!isQuantized(wType)) throw new InvalidArgumentError('quantizedMatmul.w.dtype', wType, 'must be q8_0 or q4_0');
    return [
      bytesOf(
        quantizedMatmul(f32(op.x, 'quantizedMatmul.x'), op.w.data, wType, dim(op.x, 0), dim(op.x, 1), dim(op.w, 0)),
      ),
    ];
  },
  scratchBytes: (op) => 4 * dim(op.w, 0) * dim(op.w, 1),
};
