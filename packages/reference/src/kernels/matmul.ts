// matmul: a [m, k] x b [k, n] -> [m, n], every dot product accumulated in float64.
import { decodeF16, encodeF16 } from '@tandem/core';
import { expectCount, expectLength } from './check.ts';

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
