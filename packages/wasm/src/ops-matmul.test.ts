import { beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { asU16, expectClose, f32, runF32, runOnBackend, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { decodeF16, encodeF16 } from '@tandem/core';
import { matmul, matmulF16 } from '@tandem/reference';

const SIZES = [1, 3, 5, 7, 17, 33, 65];

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

/** f32 accumulation over k terms of |x| <= 1: error grows like k * eps. */
function tolerance(k: number): { abs: number; rel: number } {
  return { abs: 2e-6 * Math.max(1, k), rel: 1e-5 };
}

describe('matmul f32', () => {
  it('has a comparison that notices a wrong answer', () => {
    expect(() => expectClose([1, 2], [1, 2.001], { abs: 1e-4, rel: 0 })).toThrow(/element 1/);
  });

  it('multiplies a hand-checkable 2x3 by 3x2', async () => {
    const out = await runF32(backend, {
      op: 'matmul',
      a: f32([2, 3], [1, 2, 3, 4, 5, 6]),
      b: f32([3, 2], [7, 8, 9, 10, 11, 12]),
    });
    expect(Array.from(out)).toEqual([58, 64, 139, 154]);
  });

  it('handles every remainder of M, N and K in {1, 3, 5, 7, 17, 33, 65}', async () => {
    const random = createRandom(1);
    for (const m of SIZES) {
      for (const n of SIZES) {
        for (const k of SIZES) {
          const a = randomFloats(random, m * k);
          const b = randomFloats(random, k * n);
          const out = await runF32(backend, { op: 'matmul', a: f32([m, k], a), b: f32([k, n], b) });
          expectClose(out, matmul(a, b, m, k, n), tolerance(k), `m=${m} n=${n} k=${k}`);
        }
      }
    }
  });

  it('crosses the K block (256), the M block (128) and streams small M', async () => {
    const random = createRandom(2);
    for (const [m, k, n] of [
      [129, 257, 9],
      [4, 300, 17],
      [200, 513, 40],
      [1, 700, 70],
      [2, 33, 1000],
      [3, 1, 5],
      [256, 256, 256],
    ] as const) {
      const a = randomFloats(random, m * k);
      const b = randomFloats(random, k * n);
      const out = await runF32(backend, { op: 'matmul', a: f32([m, k], a), b: f32([k, n], b) });
      expectClose(out, matmul(a, b, m, k, n), tolerance(k), `m=${m} n=${n} k=${k}`);
    }
  });
});

describe('matmul f16', () => {
  it('computes in f32 and rounds once to f16', async () => {
    const random = createRandom(3);
    for (const [m, k, n] of [
      [1, 1, 1],
      [3, 5, 7],
      [17, 33, 9],
      [65, 40, 33],
    ] as const) {
      const a = encodeF16(randomFloats(random, m * k));
      const b = encodeF16(randomFloats(random, k * n));
      const { outputs, specs } = await runOnBackend(backend, {
        op: 'matmul',
        a: { dtype: 'f16', shape: [m, k], data: a },
        b: { dtype: 'f16', shape: [k, n], data: b },
      });
      expect(specs[0]?.dtype).toBe('f16');
      const got = decodeF16(asU16(outputs[0] ?? new Uint8Array()));
      const want = decodeF16(matmulF16(a, b, m, k, n));
      // One f16 rounding of the result: relative 2^-11, plus f32 accumulation.
      expectClose(got, want, { abs: 1e-3 + tolerance(k).abs, rel: 2 ** -10 }, `f16 m=${m} n=${n} k=${k}`);
    }
  });
});
