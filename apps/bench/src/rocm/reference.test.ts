import { describe, expect, it } from 'vitest';
import { dequantizeQ4_0, quantizeQ4_0 } from '@tandem/core';
import { randomBlockMatrix, signedValues } from './data.ts';
import { checkCosineSamples, checkElementwise, checkMatmulSamples, checkMatvecSamples, describeCheck, sampleIndices } from './reference.ts';

function matmul(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) c[i * n + j] = (c[i * n + j] ?? 0) + (a[i * n + k] ?? 0) * (b[k * n + j] ?? 0);
  return c;
}

describe('sampled CPU-reference checks', () => {
  it('spreads samples from the first to the last index', () => {
    expect(sampleIndices(10, 3)).toEqual([0, 5, 9]);
    expect(sampleIndices(3, 8)).toEqual([0, 1, 2]);
    expect(sampleIndices(100, 1)).toEqual([0]);
  });

  it('accepts a correct f32 matmul and rejects one wrong entry', () => {
    const n = 24;
    const a = signedValues(n * n, 1);
    const b = signedValues(n * n, 2);
    const c = matmul(a, b, n);
    expect(checkMatmulSamples(a, b, c, n, n * n).ok).toBe(true);
    c[n * n - 1] = (c[n * n - 1] ?? 0) + 0.01;
    const bad = checkMatmulSamples(a, b, c, n, 5);
    expect(bad.ok).toBe(false);
    expect(bad.firstBad).toMatch(/^575: /);
    expect(describeCheck(bad)).toMatch(/^FAILED/);
  });

  it('checks a Q4_0 mat-vec against the dequantized rows, and catches swapped rows', () => {
    const [n, k] = [6, 64];
    const w = quantizeQ4_0(signedValues(n * k, 3));
    const values = dequantizeQ4_0(w, n * k);
    const x = signedValues(k, 4);
    const out = new Float32Array(n);
    for (let r = 0; r < n; r++) {
      let sum = 0;
      for (let i = 0; i < k; i++) sum += (values[r * k + i] ?? 0) * (x[i] ?? 0);
      out[r] = sum;
    }
    expect(checkMatvecSamples('q4_0', w, x, out, n, k, n)).toMatchObject({ ok: true, checked: n });
    [out[1], out[4]] = [out[4] ?? 0, out[1] ?? 0];
    expect(checkMatvecSamples('q4_0', w, x, out, n, k, n).ok).toBe(false);
  });

  it('accepts exact cosine scores and rejects a sign flip', () => {
    const dim = 8;
    const query = signedValues(dim, 5);
    const targets = signedValues(4 * dim, 6);
    const scores = new Float32Array(4);
    for (let t = 0; t < 4; t++) {
      let [dot, qq, tt] = [0, 0, 0];
      for (let i = 0; i < dim; i++) {
        const [q, v] = [query[i] ?? 0, targets[t * dim + i] ?? 0];
        dot += q * v;
        qq += q * q;
        tt += v * v;
      }
      scores[t] = dot / Math.sqrt(qq * tt);
    }
    expect(checkCosineSamples(query, targets, scores, dim, 4).ok).toBe(true);
    scores[2] = -(scores[2] ?? 0);
    expect(checkCosineSamples(query, targets, scores, dim, 4).ok).toBe(false);
  });

  it('compares elementwise results exactly', () => {
    const x = new Float32Array([1, 2, 3]);
    expect(checkElementwise(new Float32Array([1.5, 3, 4.5]), (i) => (x[i] ?? 0) * 1.5, 3).ok).toBe(true);
    expect(checkElementwise(new Float32Array([1.5, 3, 4.6]), (i) => (x[i] ?? 0) * 1.5, 3).ok).toBe(false);
  });

  it('makes random blocks whose scales are small positive halves', () => {
    const bytes = randomBlockMatrix('q8_0', 2, 64, 9);
    expect(bytes.byteLength).toBe(4 * 34);
    const view = new DataView(bytes.buffer);
    for (let b = 0; b < 4; b++) {
      const bits = view.getUint16(b * 34, true);
      expect(bits >>> 15).toBe(0);
      expect(bits).toBeGreaterThan(0x1000); // >= 0.001 as binary16
    }
  });
});
