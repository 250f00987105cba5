// matmul: a [m, k] x b [k, n] -> [m, n], every dot product accumulated in float64.
import { decodeF16, encodeF16 } from '@tandem/core';
import { dim, expectCount, expectLength, f32, widenedBytes, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf, readU16 } from '../bytes.ts';

/** f32 matrix product a [m, k] x b [k, n] -> [m, n], float64 accumulation, rounded once to f32. */
export function matmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float32Array {
  expectCount('matmul.m', m);
  expectCount('matmul.k', k);
  expectCount('matmul.n', n);
  expectLength('matmul.a', a, m * k);
  expectLength('matmul.b', b, k * n);
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += (a[i * k + p] ?? 0) * (b[p * n + j] ?? 0);
      out[i * n + j] = sum;
    }
  }
  return out;
}

/** f16 matrix product: inputs are binary16 bits, decoded, multiplied with float64 accumulation, rounded to f16. */
export function matmulF16(a: Uint16Array, b: Uint16Array, m: number, k: number, n: number): Uint16Array {
  return encodeF16(matmul(decodeF16(a), decodeF16(b), m, k, n));
}

/** The reference's matmul (f16 widens every tensor to f32 scratch). */
export const matmulKernel: ReferenceKernel<'matmul'> = {
  run(op) {
    const [m, k, n] = [dim(op.a, 0), dim(op.a, 1), dim(op.b, 1)];
    if (op.a.dtype === 'f16') return [bytesOf(matmulF16(readU16(op.a.data), readU16(op.b.data), m, k, n))];
    return [bytesOf(matmul(f32(op.a, 'matmul.a'), f32(op.b, 'matmul.b'), m, k, n))];
  },
  scratchBytes: (op, outputs) => (op.a.dtype === 'f16' ? widenedBytes([op.a, op.b], outputs) : 0),
};
