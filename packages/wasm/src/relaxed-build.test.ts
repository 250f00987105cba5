// The relaxed-SIMD build (f32x4.relaxed_madd in the hot loops) against the same JS references. Node 20 gates
// relaxed SIMD behind a V8 flag; it can be switched on at run time before the first module is compiled.
import { setFlagsFromString } from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { supportsRelaxedSimd } from './wasm-builds.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { quantizeAs } from '@tandem/core';
import { attention, cosineSimilarity, matmul, quantizedMatmul, silu, softmax } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  setFlagsFromString('--experimental-wasm-relaxed-simd');
  backend = await startedBackend({ simd: 'relaxed' });
});

describe('relaxed-SIMD build', () => {
  it('is detected and loaded', () => {
    expect(supportsRelaxedSimd()).toBe(true);
    expect(backend.describe().features).toEqual(['simd', 'relaxed-simd']);
    expect(backend.describe().name).toContain('tandem-relaxed.wasm');
  });

  it('multiplies f32 matrices of remainder sizes and across blocks', async () => {
    const random = createRandom(70);
    for (const [m, k, n] of [
      [1, 1, 1],
      [3, 5, 7],
      [17, 33, 65],
      [65, 7, 3],
      [129, 257, 9],
      [2, 300, 40],
    ] as const) {
      const a = randomFloats(random, m * k);
      const b = randomFloats(random, k * n);
      expectClose(
        await runF32(backend, { op: 'matmul', a: f32([m, k], a), b: f32([k, n], b) }),
        matmul(a, b, m, k, n),
        { abs: 2e-6 * k, rel: 1e-5 },
        `${m}x${k}x${n}`,
      );
    }
  });

  it('runs quantized matmul on both paths', async () => {
    const random = createRandom(71);
    for (const dtype of ['q8_0', 'q4_0'] as const) {
      for (const [m, k, n] of [
        [1, 64, 9],
        [5, 288, 17],
        [9, 96, 33],
      ] as const) {
        const x = randomFloats(random, m * k);
        const w = quantizeAs(dtype, randomFloats(random, n * k));
        const out = await runF32(backend, {
          op: 'quantizedMatmul',
          x: f32([m, k], x),
          w: { dtype, shape: [n, k], data: w },
        });
        expectClose(
          out,
          quantizedMatmul(x, w, dtype, m, k, n),
          { abs: 2e-6 * k, rel: 1e-5 },
          `${dtype} ${m}x${k}x${n}`,
        );
      }
    }
  });

  it('computes softmax, silu, attention and cosine similarity', async () => {
    const random = createRandom(72);
    const x = randomFloats(random, 5 * 33, 10);
    expectClose(
      await runF32(backend, { op: 'softmax', x: f32([5, 33], x), causal: true }),
      softmax(x, 5, 33, true),
      { abs: 1e-7, rel: 2e-6 },
      'softmax',
    );
    expectClose(await runF32(backend, { op: 'silu', x: f32([165], x) }), silu(x), { abs: 1e-6, rel: 2e-6 }, 'silu');
    const [sq, sk, h, hkv, d] = [3, 9, 4, 2, 17];
    const q = randomFloats(random, sq * h * d);
    const k = randomFloats(random, sk * hkv * d);
    const v = randomFloats(random, sk * hkv * d);
    const att = await runF32(backend, {
      op: 'attention',
      q: f32([sq, h, d], q),
      k: f32([sk, hkv, d], k),
      v: f32([sk, hkv, d], v),
      causal: true,
      scale: undefined,
    });
    expectClose(
      att,
      attention(q, k, v, { sq, sk, heads: h, kvHeads: hkv, headDim: d }, true, undefined),
      { abs: 2e-6, rel: 1e-5 },
      'attention',
    );
    const t = randomFloats(random, 20 * 768);
    const one = randomFloats(random, 768);
    expectClose(
      await runF32(backend, { op: 'cosineSimilarity', queries: f32([768], one), targets: f32([20, 768], t) }),
      cosineSimilarity(one, t, 1, 20, 768),
      { abs: 2e-6, rel: 2e-6 },
      'cosine',
    );
  });
});
