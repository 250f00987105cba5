// rmsNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight, with a float64 mean square.
import { InvalidArgumentError } from '@tandem/core';
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** RMSNorm of each row of n values of x; `weight` ([n]) multiplies channel-wise, undefined means 1. */
export function rmsNorm(x: Float32Array, n: number, weight: Float32Array | undefined, eps: number): Float32Array {
  expectCount('rmsNorm.n', n);
  if (weight !== undefined) expectLength('rmsNorm.weight', weight, n);
  const out = new Float32Array(x.length);
  if (n === 0) return out;
  if (x.length % n !== 0)
    throw new InvalidArgumentError('rmsNorm.x.length', x.length, `must be a multiple of n (${n})`);
  for (let base = 0; base < x.length; base += n) {
    let squares = 0;
    for (let c = 0; c < n; c++) squares += (x[base + c] ?? 0) ** 2;
    const inverseRms = 1 / Math.sqrt(squares / n + eps);
    for (let c = 0; c < n; c++)
      out[base + c] = (x[base + c] ?? 0) * inverseRms * (weight === undefined ? 1 : (weight[c] ?? 0));
  }
  return out;
}

/** The reference's rmsNorm. */
export const rmsNormKernel: ReferenceKernel<'rmsNorm'> = {
  run(op) {
    const weight = op.weight === undefined ? undefined : f32(op.weight, 'rmsNorm.weight');
    return [bytesOf(rmsNorm(f32(op.x, 'rmsNorm.x'), dim(op.x, -1), weight, op.eps))];
  },
};
