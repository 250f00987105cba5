import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { checkCosineSample, checkMatmulSample, cosineTargetBytes, matmulFlop, randomMatrix, terabytesPerSecond, tflops } from './accounting.ts';

function naiveMatmul(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let p = 0; p < n; p++) s += (a[i * n + p] ?? 0) * (b[p * n + j] ?? 0);
    c[i * n + j] = s;
  }
  return c;
}

describe('FLOP and byte accounting', () => {
  it('counts 2 n^3 FLOP per square matmul', () => {
    expect(matmulFlop(4096)).toBe(137_438_953_472);
    expect(tflops(matmulFlop(4096), 2.748779069)).toBeCloseTo(50, 6);
  });

  it('counts the targets a 768-d cosine scan reads', () => {
    expect(cosineTargetBytes(1_000_000, 768)).toBe(3_072_000_000);
    expect(terabytesPerSecond(3_072_000_000, 2.048)).toBeCloseTo(1.5, 9);
  });

  it('gives NaN rates for a zero time and rejects bad sizes', () => {
    expect(tflops(1, 0)).toBeNaN();
    expect(terabytesPerSecond(1, -1)).toBeNaN();
    expect(() => matmulFlop(0)).toThrow(InvalidArgumentError);
    expect(() => cosineTargetBytes(10, 1.5)).toThrow(InvalidArgumentError);
  });
});

describe('sampled correctness checks', () => {
  const n = 24;
  const a = randomMatrix(n * n, 1);
  const b = randomMatrix(n * n, 2);

  it('accepts a right matmul and rejects one with every entry off by 1e-2', () => {
    const right = naiveMatmul(a, b, n);
    expect(checkMatmulSample(a, b, right, n).ok).toBe(true);
    const wrong = right.map((v) => v + 1e-2);
    const check = checkMatmulSample(a, b, wrong, n);
    expect(check.ok).toBe(false);
    expect(check.maxError).toBeCloseTo(1e-2, 4);
  });

  it('rejects NaN results and mismatched lengths', () => {
    expect(checkMatmulSample(a, b, new Float32Array(n * n).fill(NaN), n).ok).toBe(false);
    expect(() => checkMatmulSample(a, b, new Float32Array(3), n)).toThrow(InvalidArgumentError);
  });

  it('checks cosine scores against f64 cosines', () => {
    const dim = 8;
    const query = randomMatrix(dim, 3);
    const targets = randomMatrix(5 * dim, 4);
    const scores = new Float32Array(5);
    let qn = 0;
    for (let d = 0; d < dim; d++) qn += (query[d] ?? 0) ** 2;
    for (let t = 0; t < 5; t++) {
      let dot = 0;
      let tn = 0;
      for (let d = 0; d < dim; d++) {
        dot += (query[d] ?? 0) * (targets[t * dim + d] ?? 0);
        tn += (targets[t * dim + d] ?? 0) ** 2;
      }
      scores[t] = dot / Math.sqrt(qn * tn);
    }
    expect(checkCosineSample(query, targets, scores, dim).ok).toBe(true);
    expect(checkCosineSample(query, targets, scores.map((s) => -s), dim).ok).toBe(false);
    expect(() => checkCosineSample(query, targets, new Float32Array(4), dim)).toThrow(InvalidArgumentError);
  });
});
