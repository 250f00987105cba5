import { beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { rmsNorm, rope, softmax } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

describe('softmax', () => {
  it('normalises a hand-checkable row', async () => {
    const out = await runF32(backend, { op: 'softmax', x: f32([3], [0, Math.log(2), Math.log(5)]), causal: false });
    expectClose(out, [1 / 8, 2 / 8, 5 / 8], { abs: 1e-7, rel: 1e-6 });
  });

  it('matches JS for random rows of every remainder length, plain and causal', async () => {
    const random = createRandom(40);
    for (const shape of [[1], [3], [7], [33], [5, 65], [2, 3, 17], [4, 9], [9, 4], [3, 1000]]) {
      const count = shape.reduce((x, y) => x * y, 1);
      const x = randomFloats(random, count, 20);
      const cols = shape[shape.length - 1] ?? 1;
      const rows = shape.length >= 2 ? (shape[shape.length - 2] ?? 1) : 1;
      for (const causal of shape.length >= 2 ? [false, true] : [false]) {
        const out = await runF32(backend, { op: 'softmax', x: f32(shape, x), causal });
        expectClose(out, softmax(x, rows, cols, causal), { abs: 1e-7, rel: 2e-6 }, `softmax ${shape} causal=${causal}`);
      }
    }
  });

  it('gives zeros for all -inf rows and for -inf entries; handles huge magnitudes', async () => {
    const x = [-Infinity, -Infinity, -Infinity, 1, -Infinity, 1, 1e30, -1e30, 0];
    const out = await runF32(backend, { op: 'softmax', x: f32([3, 3], x), causal: false });
    expect(Array.from(out)).toEqual([0, 0, 0, 0.5, 0, 0.5, 1, 0, 0]);
  });

  it('masks causally with more columns than rows (row r sees c <= r + cols - rows)', async () => {
    const out = await runF32(backend, { op: 'softmax', x: f32([2, 4], [0, 0, 0, 0, 0, 0, 0, 0]), causal: true });
    expectClose(out, [1 / 3, 1 / 3, 1 / 3, 0, 0.25, 0.25, 0.25, 0.25], { abs: 1e-7, rel: 1e-6 });
    const wide = await runF32(backend, { op: 'softmax', x: f32([4, 2], [0, 0, 0, 0, 0, 0, 0, 0]), causal: true });
    expect(Array.from(wide)).toEqual([0, 0, 0, 0, 1, 0, 0.5, 0.5]);
  });
});

describe('rmsNorm', () => {
  it('normalises with and without a weight', async () => {
    const out = await runF32(backend, { op: 'rmsNorm', x: f32([2, 2], [3, 4, 0, 0]), weight: undefined, eps: 0 });
    expectClose(out, [3 / Math.sqrt(12.5), 4 / Math.sqrt(12.5), NaN, NaN], { abs: 1e-7, rel: 1e-6 });
    const random = createRandom(41);
    for (const n of [1, 3, 7, 8, 17, 65, 4096]) {
      const x = randomFloats(random, 3 * n, 5);
      const w = randomFloats(random, n, 2);
      expectClose(
        await runF32(backend, { op: 'rmsNorm', x: f32([3, n], x), weight: f32([n], w), eps: 1e-5 }),
        rmsNorm(x, n, w, 1e-5),
        { abs: 1e-6, rel: 2e-6 },
        `n=${n}`,
      );
      expectClose(
        await runF32(backend, { op: 'rmsNorm', x: f32([3, n], x), weight: undefined, eps: 1e-5 }),
        rmsNorm(x, n, undefined, 1e-5),
        { abs: 1e-6, rel: 2e-6 },
        `n=${n}`,
      );
    }
  });
});

describe('rope', () => {
  it('rotates one interleaved pair by the position angle', async () => {
    const out = await runF32(backend, {
      op: 'rope',
      x: f32([1, 1, 2], [1, 0]),
      positionOffset: 1,
      base: 10000,
      mode: 'interleaved',
    });
    expectClose(out, [Math.cos(1), Math.sin(1)], { abs: 1e-7, rel: 1e-6 });
  });

  it('matches JS in both modes, many positions (the recurrence stays accurate) and odd head counts', async () => {
    const random = createRandom(42);
    for (const mode of ['interleaved', 'neox'] as const) {
      for (const [seq, heads, dim, offset] of [
        [1, 1, 2, 0],
        [3, 5, 6, 7],
        [70, 3, 10, 1000],
        [5, 2, 64, 0],
        [200, 1, 128, 4000],
      ] as const) {
        const x = randomFloats(random, seq * heads * dim, 3);
        const out = await runF32(backend, {
          op: 'rope',
          x: f32([seq, heads, dim], x),
          positionOffset: offset,
          base: 10000,
          mode,
        });
        expectClose(
          out,
          rope(x, { seq, heads, headDim: dim, positionOffset: offset, base: 10000, mode }),
          { abs: 2e-6, rel: 2e-6 },
          `${mode} ${seq}x${heads}x${dim}@${offset}`,
        );
      }
    }
  });
});
