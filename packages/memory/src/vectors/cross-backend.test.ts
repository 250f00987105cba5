// The same searches on each backend under test (wasm, WebGPU on SwiftShader): scores agree with @tandem/reference's
// cosine within 1e-5 relative (absolute 5e-7 for |score| < 0.05), on both score kernels. Measured worst cases:
// 6.3e-6 relative, 2.1e-7 absolute (WebGPU).
import { loadFioriDocs } from '@tandem/datasets';
import { afterAll, describe, expect, it } from 'vitest';
import { started } from '../../../../test/support/backends.ts';
import { singleBackendEngines } from './testing/backends.ts';
import { cosineScores, expectHitsMatch, randomVectors } from './testing/brute-force.ts';
import { VectorOps } from './vector-ops.ts';

const engines = await singleBackendEngines();
afterAll(async () => {
  for (const { engine } of engines) await engine?.dispose();
});

for (const { name, engine: maybe } of engines) {
  describe.skipIf(maybe === undefined)(`VectorOps on ${name}`, () => {
    it.each([
      [768, 600, 'cosine', 3],
      [768, 600, 'matmul', 20],
      [100, 2000, 'cosine', 2],
      [100, 2000, 'matmul', 16],
    ] as const)('dim %i, %i vectors, %s kernel, %i queries, top 10', async (dim, count, kernel, q) => {
      const engine = started(name, maybe);
      const targets = randomVectors(count, dim, dim * 7 + count);
      const queries = randomVectors(q, dim, dim * 7 + count + 1);
      const ops = await VectorOps.create(engine, targets, dim, {
        matmulMinQueries: kernel === 'matmul' ? 1 : Infinity,
      });
      const rows = await ops.searchMany(queries, 10);
      ops.dispose();
      for (let row = 0; row < q; row++)
        expectHitsMatch(rows[row] ?? [], cosineScores(queries, row, targets, dim), 10, 1e-5);
    });

    it('real data: 384-d Fiori documentation embeddings, each chunk finds itself first and its neighbours as the oracle does', async () => {
      const engine = started(name, maybe);
      const docs = await loadFioriDocs({ limit: 400 });
      const picks = [0, 57, 199, 398];
      const queries = new Float32Array(picks.length * docs.dim);
      picks.forEach((doc, i) => {
        queries.set(docs.vectors.subarray(doc * docs.dim, (doc + 1) * docs.dim), i * docs.dim);
      });
      const ops = await VectorOps.create(engine, docs.vectors, docs.dim, { matmulMinQueries: 4 });
      const batched = await ops.searchMany(queries, 10);
      const single = await ops.search(queries.subarray(0, docs.dim), 10);
      picks.forEach((doc, i) => {
        const oracle = cosineScores(queries, i, docs.vectors, docs.dim);
        const hits = batched[i] ?? [];
        expect(hits[0]?.index, `chunk ${doc}`).toBe(doc);
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expectHitsMatch(hits, oracle, 10, 1e-5);
      });
      expectHitsMatch(single, cosineScores(queries, 0, docs.vectors, docs.dim), 10, 1e-5);
      ops.dispose();
    });
  });
}
