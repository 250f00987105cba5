// softmax, rmsNorm and rope against JS on odd and zero sizes.
import { afterAll, describe, it } from 'vitest';
import { createTestBackend, runF32, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { rmsNorm, rope, softmax } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe.skipIf(!setup.ok)('softmax, rmsNorm and rope on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  const matrices: Array<[number, number, number]> = [
    [1, 1, 1],
    [2, 3, 7],
    [1, 7, 3],
    [3, 17, 17],
    [1, 5, 65],
    [2, 33, 1],
    [1, 0, 4],
    [1, 4, 0],
    [1, 2, 300],
  ];
  it.each(matrices)('softmax of [%i, %i, %i], plain and causal', async (batch, rows, cols) => {
    const x = randomF32(batch * rows * cols, rows * 31 + cols, 8);
    const t = await upload(backend, 'f32', [batch, rows, cols], x);
    for (const causal of [false, true]) {
      const got = await runF32(backend, { op: 'softmax', x: t, causal });
      expectClose(got, softmax(x, rows, cols, causal), 1e-6, 1e-5, `softmax causal=${causal}`);
    }
    backend.free(t.buffer);
  });

  it('softmax gives zeros for rows that are all -inf, and handles -inf entries', async () => {
    const x = [-Infinity, -Infinity, -Infinity, 0, -Infinity, 1];
    const t = await upload(backend, 'f32', [2, 3], x);
    const got = await runF32(backend, { op: 'softmax', x: t, causal: false });
    expectClose(got, softmax(Float32Array.from(x), 2, 3, false), 1e-6, 1e-5, 'softmax -inf');
  });

  it('softmax over a rank-1 tensor', async () => {
    const x = randomF32(17, 4);
    const t = await upload(backend, 'f32', [17], x);
    expectClose(
      await runF32(backend, { op: 'softmax', x: t, causal: false }),
      softmax(x, 1, 17, false),
      1e-6,
      1e-5,
      'softmax 1d',
    );
  });

  it.each([
    [1, 1],
    [3, 7],
    [7, 17],
    [2, 65],
    [5, 33],
    [0, 8],
    [3, 0],
    [1, 1000],
  ])('rmsNorm of [%i, %i] with and without weight', async (rows, n) => {
    const x = randomF32(rows * n, rows + n * 3, 3);
    const w = randomF32(n, n + 1);
    const tx = await upload(backend, 'f32', [rows, n], x);
    const tw = await upload(backend, 'f32', [n], w);
    expectClose(
      await runF32(backend, { op: 'rmsNorm', x: tx, weight: tw, eps: 1e-5 }),
      rmsNorm(x, n, w, 1e-5),
      1e-5,
      1e-4,
      'rmsNorm w',
    );
    expectClose(
      await runF32(backend, { op: 'rmsNorm', x: tx, weight: undefined, eps: 1e-6 }),
      rmsNorm(x, n, undefined, 1e-6),
      1e-5,
      1e-4,
      'rmsNorm',
    );
  });

  it.each([
    [1, 1, 2],
    [3, 7, 4],
    [7, 3, 16],
    [17, 2, 6],
    [2, 1, 64],
    [0, 3, 4],
    [3, 0, 4],
    [3, 2, 0],
  ])('rope on [%i, %i, %i], interleaved and neox', async (seq, heads, d) => {
    const x = randomF32(seq * heads * d, seq * 13 + d);
    const t = await upload(backend, 'f32', [seq, heads, d], x);
    for (const mode of ['interleaved', 'neox'] as const) {
      for (const [offset, base] of [
        [0, 10000],
        [37, 500000],
      ] as const) {
        const got = await runF32(backend, { op: 'rope', x: t, positionOffset: offset, base, mode });
        expectClose(
          got,
          rope(x, { seq, heads, headDim: d, positionOffset: offset, base, mode }),
          5e-6,
          2e-5,
          `rope ${mode} +${offset}`,
        );
      }
    }
  });

  it('rope stays accurate at large positions', async () => {
    const [seq, heads, d] = [3, 1, 8];
    const x = randomF32(seq * heads * d, 77);
    const t = await upload(backend, 'f32', [seq, heads, d], x);
    const got = await runF32(backend, { op: 'rope', x: t, positionOffset: 8000, base: 10000, mode: 'neox' });
    expectClose(
      got,
      rope(x, { seq, heads, headDim: d, positionOffset: 8000, base: 10000, mode: 'neox' }),
      5e-4,
      1e-4,
      'rope 8000',
    );
  });
});
