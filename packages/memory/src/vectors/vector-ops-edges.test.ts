// VectorOps at the edges of CosineSimilarityOp's rules, on each backend under test (wasm, WebGPU on SwiftShader), on
// both score kernels, against @tandem/reference's cosine: stored vectors and queries from 1e-45 (subnormal) to 3e38
// score as their unit directions do; NaN, infinite and zero queries are refused, never scored.
import { InvalidArgumentError } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { started } from '../../../../test/support/backends.ts';
import { singleBackendEngines } from './testing/backends.ts';
import { cosineScores, expectHitsMatch, randomVectors } from './testing/brute-force.ts';
import { VectorOps } from './vector-ops.ts';

const engines = await singleBackendEngines();
afterAll(async () => {
  for (const { engine } of engines) await engine?.dispose();
});

const DIM = 24;
const COUNT = 40;
/** Row scale factors: f32 sums of squares underflow (to 0 or subnormal) or overflow for all but 1. */
const FACTORS = [1, 1e-30, 1e-40, 3e37, 1e25, 1e-20];

/** Random vectors with row r scaled by FACTORS[r mod 6] (entries rounded to f32, possibly subnormal). */
function scaledVectors(count: number, seed: number): Float32Array {
  const values = randomVectors(count, DIM, seed);
  for (let i = 0; i < values.length; i++)
    values[i] = (values[i] ?? 0) * (FACTORS[Math.floor(i / DIM) % FACTORS.length] ?? 1);
  return values;
}

for (const { name, engine: maybe } of engines) {
  describe.skipIf(maybe === undefined)(`VectorOps with vectors of extreme length on ${name}`, () => {
    it.each(['cosine', 'matmul'] as const)(
      '%s kernel: scaled stored vectors and queries match the oracle',
      async (kernel) => {
        const engine = started(name, maybe);
        const targets = scaledVectors(COUNT, 11);
        const queries = scaledVectors(FACTORS.length, 12);
        const ops = await VectorOps.create(engine, targets, DIM, {
          matmulMinQueries: kernel === 'matmul' ? 1 : Infinity,
        });
        const batch = await ops.searchMany(queries, 5);
        for (let q = 0; q < FACTORS.length; q++) {
          const hits = batch[q] ?? [];
          expect(
            hits.every((h) => Number.isFinite(h.score)),
            `query ${q}`,
          ).toBe(true);
          expectHitsMatch(hits, cosineScores(queries, q, targets, DIM), 5, 1e-5);
        }
        ops.dispose();
      },
    );

    it('a query scaled by 1e-30 .. 3e37 finds the same vectors with the same scores as unscaled', async () => {
      // (Normal f32 factors only: scaling into subnormals rounds the entries themselves; the oracle test above has those.)
      const engine = started(name, maybe);
      const targets = randomVectors(COUNT, DIM, 21);
      const query = randomVectors(1, DIM, 22);
      const ops = await VectorOps.create(engine, targets, DIM);
      const plain = await ops.search(query, 5);
      for (const factor of [1e-30, 1e-20, 1e25, 3e37]) {
        const scaled = await ops.search(
          query.map((v) => v * factor),
          5,
        );
        expect(
          scaled.map((h) => h.index),
          `x ${factor}`,
        ).toEqual(plain.map((h) => h.index));
        scaled.forEach((h, i) => {
          expect(h.score, `x ${factor}`).toBeCloseTo(plain[i]?.score ?? Number.NaN, 6);
        });
      }
      ops.dispose();
    });

    it('refuses NaN, infinite and zero queries with InvalidArgumentError', async () => {
      const engine = started(name, maybe);
      const ops = await VectorOps.create(engine, randomVectors(COUNT, DIM, 31), DIM);
      for (const bad of [Number.NaN, Infinity, -Infinity]) {
        const query = randomVectors(1, DIM, 32);
        query[3] = bad;
        await expect(ops.search(query, 3)).rejects.toThrow(InvalidArgumentError);
      }
      await expect(ops.search(new Float32Array(DIM), 3)).rejects.toThrow(InvalidArgumentError);
      ops.dispose();
    });
  });
}
