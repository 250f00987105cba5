// cosineSimilarity and topK against JS, including zero vectors, ties, -0, infinities and NaN.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestBackend, readF32, readI32, run, runF32, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { cosineSimilarity, topK } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe.skipIf(!setup.ok)('cosineSimilarity and topK on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  it.each([
    [1, 1, 1],
    [3, 7, 17],
    [1, 65, 33],
    [7, 3, 65],
    [2, 0, 5],
    [0, 3, 5],
    [2, 3, 0],
  ])('cosine of [%i, D] x [%i, D], D=%i', async (nq, nt, dim) => {
    const queries = randomF32(nq * dim, nq + dim);
    const targets = randomF32(nt * dim, nt + dim + 1);
    if (nt > 1) targets.fill(0, 0, dim);
    const tq = await upload(backend, 'f32', [nq, dim], queries);
    const tt = await upload(backend, 'f32', [nt, dim], targets);
    const got = await runF32(backend, { op: 'cosineSimilarity', queries: tq, targets: tt });
    expectClose(got, cosineSimilarity(queries, targets, nq, nt, dim), 1e-6, 1e-5, 'cosine');
  });

  it('cosine of a single query vector [D]', async () => {
    const q = randomF32(17, 3);
    const targets = randomF32(5 * 17, 4);
    const tq = await upload(backend, 'f32', [17], q);
    const tt = await upload(backend, 'f32', [5, 17], targets);
    expectClose(
      await runF32(backend, { op: 'cosineSimilarity', queries: tq, targets: tt }),
      cosineSimilarity(q, targets, 1, 5, 17),
      1e-6,
      1e-5,
      'cosine 1d',
    );
  });

  it.each([
    [1, 1, 1],
    [3, 7, 3],
    [2, 17, 17],
    [1, 65, 5],
    [5, 33, 1],
    [0, 4, 2],
    [1, 3000, 10],
  ])('topK rows=%i n=%i k=%i', async (rows, n, k) => {
    const x = randomF32(rows * n, rows + n + k);
    for (let i = 0; i < x.length; i += 5) x[i] = x[i + 1] ?? 0; // ties
    const t = await upload(backend, 'f32', [rows, n], x);
    const [values, indices] = await run(backend, { op: 'topK', x: t, k });
    if (values === undefined || indices === undefined) throw new Error('outputs missing');
    const expected = topK(x, rows, n, k);
    expect(Array.from(await readI32(backend, indices))).toEqual(Array.from(expected.indices));
    expectClose(await readF32(backend, values), expected.values, 0, 0, 'topK values');
  });

  it('topK orders NaN below -inf, ties -0 with +0 by index, and keeps infinities', async () => {
    const x = [NaN, -Infinity, 0, -0, Infinity, 3, NaN, 3, -0];
    const t = await upload(backend, 'f32', [x.length], x);
    const [values, indices] = await run(backend, { op: 'topK', x: t, k: x.length });
    if (values === undefined || indices === undefined) throw new Error('outputs missing');
    expect(Array.from(await readI32(backend, indices))).toEqual([4, 5, 7, 2, 3, 8, 1, 0, 6]);
    const got = Array.from(await readF32(backend, values));
    expect(got.slice(0, 7)).toEqual([Infinity, 3, 3, 0, -0, -0, -Infinity]);
    expect(got.slice(7).every(Number.isNaN)).toBe(true);
  });
});
