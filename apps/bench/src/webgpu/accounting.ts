// FLOP and byte accounting of the webgpu suite's rows, and the sampled correctness checks against f64 references
// (a wrong fast kernel is not a result).
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
  if (!Number.isSafeInteger(count) || count <= 0) throw new InvalidArgumentError('cosineTargetBytes.count', count, 'a positive integer');
  if (!Number.isSafeInteger(dim) || dim <= 0) throw new InvalidArgumentError('cosineTargetBytes.dim', dim, 'a positive integer');
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

/** Result of a sampled check. */
export interface SampledCheck {
  /** Whether every sampled entry is within tolerance. */
  readonly ok: boolean;
  /** Largest |got - expected| over the samples. */
  readonly maxError: number;
  /** Entries compared. */
  readonly samples: number;
}

/**
 * Compares `samples` random entries of `got` = a (n x n) times b (n x n), row-major, with f64 dot products; an
 * entry passes when |error| <= 1e-5 x sum |a_ip b_pj| + 1e-6 (f32 rounding grows with the terms' magnitudes).
 */
export function checkMatmulSample(a: Float32Array, b: Float32Array, got: Float32Array, n: number, samples = 16): SampledCheck {
  if (a.length !== n * n || b.length !== n * n || got.length !== n * n) throw new InvalidArgumentError('checkMatmulSample.n', n, 'a, b and got must each hold n x n values');
  const rng = createRng(n + samples);
  let ok = true;
  let maxError = 0;
  for (let s = 0; s < samples; s++) {
    const i = rng.int(0, n);
    const j = rng.int(0, n);
    let dot = 0;
    let magnitude = 0;
    for (let p = 0; p < n; p++) {
      const term = (a[i * n + p] ?? 0) * (b[p * n + j] ?? 0);
      dot += term;
      magnitude += Math.abs(term);
    }
    const error = Math.abs((got[i * n + j] ?? NaN) - dot);
    if (!(error <= 1e-5 * magnitude + 1e-6)) ok = false;
    maxError = Math.max(maxError, Number.isNaN(error) ? Infinity : error);
  }
  return { ok, maxError, samples };
}

/** Compares `samples` random scores of one query against `targets` (count x dim) with f64 cosines, |error| <= 1e-4. */
export function checkCosineSample(query: Float32Array, targets: Float32Array, got: Float32Array, dim: number, samples = 16): SampledCheck {
  const count = targets.length / dim;
  if (query.length !== dim || !Number.isInteger(count) || got.length !== count) throw new InvalidArgumentError('checkCosineSample.dim', dim, 'query must hold dim values, targets count x dim, got count');
  let queryNorm = 0;
  for (let d = 0; d < dim; d++) queryNorm += (query[d] ?? 0) ** 2;
  const rng = createRng(count + samples);
  let ok = true;
  let maxError = 0;
  for (let s = 0; s < samples; s++) {
    const t = rng.int(0, count);
    let dot = 0;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const v = targets[t * dim + d] ?? 0;
      dot += (query[d] ?? 0) * v;
      norm += v * v;
    }
    const expected = queryNorm > 0 && norm > 0 ? dot / Math.sqrt(queryNorm * norm) : 0;
    const error = Math.abs((got[t] ?? NaN) - expected);
    if (!(error <= 1e-4)) ok = false;
    maxError = Math.max(maxError, Number.isNaN(error) ? Infinity : error);
  }
  return { ok, maxError, samples };
}
