import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, quantizeQ4_0 } from '@tandem/core';
import { cosineSimilarity, matmul, quantizedMatmul, scale } from '@tandem/reference';
import { signedValues } from './rocm/data.ts';
import {
  checkCosineSamples,
  checkElementwise,
  checkMatmulSamples,
  checkMatvecSamples,
  describeCheck,
  sampleIndices,
} from './sampled-check.ts';

describe('sampled checks against @tandem/reference', () => {
  it('spreads samples from the first to the last index', () => {
    expect(sampleIndices(10, 3)).toEqual([0, 5, 9]);
    expect(sampleIndices(3, 8)).toEqual([0, 1, 2]);
    expect(sampleIndices(100, 1)).toEqual([0]);
  });

  it('accepts a correct f32 matmul and rejects one wrong entry, NaN results and mismatched lengths', () => {
    const n = 24;
    const a = signedValues(n * n, 1);
    const b = signedValues(n * n, 2);
    const c = matmul(a, b, n, n, n);
    expect(checkMatmulSamples(a, b, c, n, n * n)).toMatchObject({ ok: true, checked: n * n });
    c[n * n - 1] = (c[n * n - 1] ?? 0) + 0.01;
    const bad = checkMatmulSamples(a, b, c, n, 5);
    expect(bad.ok).toBe(false);
    expect(bad.firstBad).toMatch(/^575: /);
    expect(describeCheck(bad)).toMatch(/^FAILED/);
    expect(checkMatmulSamples(a, b, new Float32Array(n * n).fill(NaN), n, 4).ok).toBe(false);
    expect(() => checkMatmulSamples(a, b, new Float32Array(3), n, 4)).toThrow(InvalidArgumentError);
  });

  it('holds a matmul to its tolerance relative to the terms: 1e-3 of them fails 1e-4, passes 1e-2', () => {
    const n = 16;
    const a = new Float32Array(n * n).fill(1);
    const c = matmul(a, a, n, n, n).map((v) => v * (1 + 1e-3)); // every entry 16 * (1 + 1e-3), terms sum to 16
    expect(checkMatmulSamples(a, a, c, n, 8).ok).toBe(false);
    expect(checkMatmulSamples(a, a, c, n, 8, 1e-2)).toMatchObject({ ok: true, worstError: expect.closeTo(1e-3, 6) });
  });

  it('checks a Q4_0 mat-vec row by row, and catches swapped rows', () => {
    const [n, k] = [6, 64];
    const w = quantizeQ4_0(signedValues(n * k, 3));
    const x = signedValues(k, 4);
    const out = quantizedMatmul(x, w, 'q4_0', 1, k, n);
    expect(checkMatvecSamples('q4_0', w, x, out, n, k, n)).toMatchObject({ ok: true, checked: n });
    [out[1], out[4]] = [out[4] ?? 0, out[1] ?? 0];
    expect(checkMatvecSamples('q4_0', w, x, out, n, k, n).ok).toBe(false);
  });

  it('accepts the cosine scores and rejects a sign flip', () => {
    const dim = 8;
    const query = signedValues(dim, 5);
    const targets = signedValues(4 * dim, 6);
    const scores = cosineSimilarity(query, targets, 1, 4, dim);
    expect(checkCosineSamples(query, targets, scores, dim, 4).ok).toBe(true);
    scores[2] = -(scores[2] ?? 0);
    expect(checkCosineSamples(query, targets, scores, dim, 4).ok).toBe(false);
    expect(() => checkCosineSamples(query, targets, new Float32Array(4), dim + 1, 4)).toThrow(InvalidArgumentError);
  });

  it('compares elementwise results exactly, on the sampled entries', () => {
    const x = new Float32Array([1, 2, 3]);
    const times = (v: Float32Array): Float32Array => scale(v, 1.5);
    expect(checkElementwise(new Float32Array([1.5, 3, 4.5]), [x], times, 3).ok).toBe(true);
    expect(checkElementwise(new Float32Array([1.5, 3, 4.6]), [x], times, 3).ok).toBe(false);
    expect(checkElementwise(new Float32Array([1.5, 3.1, 4.5]), [x], times, 2).ok).toBe(true); // entry 1 is not sampled
  });
});
