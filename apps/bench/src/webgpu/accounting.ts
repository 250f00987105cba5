// FLOP and byte accounting of the webgpu suite's rows, and its random inputs.
import { createRng, InvalidArgumentError } from '@tandem/core';

/** FLOP of an n x n by n x n matmul (one multiply and one add per term). */
export function matmulFlop(n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('matmulFlop.n', n, 'a positive integer');
  return 2 * n ** 3;
}

/** TFLOP/s of `flop` done in `ms` (NaN when ms is not positive). */
export function tflops(flop: number, ms: number): number {
  return ms > 0 ? flop / ms / 1e9 : NaN;
}

/** Bytes of f32 targets a cosine scan reads: count x dim x 4. */
export function cosineTargetBytes(count: number, dim: number): number {
  if (!Number.isSafeInteger(count) || count <= 0)
    throw new InvalidArgumentError('cosineTargetBytes.count', count, 'a positive integer');
  if (!Number.isSafeInteger(dim) || dim <= 0)
    throw new InvalidArgumentError('cosineTargetBytes.dim', dim, 'a positive integer');
  return count * dim * 4;
}

/** Bandwidth in TB/s of `bytes` moved in `ms` (NaN when ms is not positive). */
export function terabytesPerSecond(bytes: number, ms: number): number {
  return ms > 0 ? bytes / ms / 1e9 : NaN;
}

/** Uniform values in [-1, 1) from a seeded generator. */
export function randomMatrix(length: number, seed: number): Float32Array {
  return createRng(seed).fillUniform(new Float32Array(length), -1, 1);
}

/** Entries each sampled check compares (sampled-check.ts). */
export const CHECK_SAMPLES = 16;
