// The cosineSimilarity edges the properties (./properties/search.ts) once found backends disagreeing on, now
// fixed everywhere, pinned as examples on each backend under test; the expected scores are the op's own rules
// (CosineSimilarityOp): NaN, 0, or the cosine of the directions, whatever the vectors' lengths.
import { afterAll, describe, expect, it } from 'vitest';
import type { CapableBackend } from '@tandem/core';
import { startTestBackends } from '../support/backends.ts';
import { hostF32, valuesOf } from '../conformance/host-tensor.ts';
import { AgreementBench } from './property-support.ts';

const started = await startTestBackends();
const bench = await AgreementBench.create(started.flatMap((s) => (s.backend === undefined ? [] : [s.backend])));

afterAll(async () => {
  await bench.dispose();
});

/** cosineSimilarity of one query against one target on `backend`. */
async function cosineOn(backend: CapableBackend, query: readonly number[], target: readonly number[]): Promise<number> {
  const op = {
    op: 'cosineSimilarity',
    queries: hostF32([1, query.length], Float32Array.from(query)),
    targets: hostF32([1, target.length], Float32Array.from(target)),
  } as const;
  const [scores] = await bench.outputsOn(op, backend.name);
  if (scores === undefined) throw new Error('no scores');
  return valuesOf(scores)[0] ?? Number.NaN;
}

for (const { name, backend } of started) {
  describe.skipIf(backend === undefined)(`cosineSimilarity edges on ${name} (the rules of CosineSimilarityOp)`, () => {
    const on = (query: readonly number[], target: readonly number[]): Promise<number> => {
      if (backend === undefined) throw new Error(`${name} did not start`);
      return cosineOn(backend, query, target);
    };

    it('a NaN in either vector makes the score NaN, also against a zero vector', async () => {
      for (const [query, target] of [
        [
          [1, 2],
          [Number.NaN, 1],
        ],
        [
          [Number.NaN, 0],
          [1, 1],
        ],
        [
          [0, 0],
          [Number.NaN, 1],
        ],
        [
          [Number.NaN, 0],
          [0, 0],
        ],
        [
          [Infinity, 1],
          [1, Number.NaN],
        ],
      ] as const) {
        expect(await on(query, target), `[${query.join(', ')}] vs [${target.join(', ')}]`).toBeNaN();
      }
    });

    it('a zero vector scores 0 even against a vector holding an infinity; otherwise an infinity gives NaN', async () => {
      for (const target of [
        [Infinity, 1],
        [-Infinity, Infinity],
        [1e-30, 0],
        [3e38, 3e38],
      ]) {
        const score = await on([0, -0], target);
        expect(Object.is(score, 0), `vs [${target.join(', ')}]: ${score}`).toBe(true);
      }
      for (const target of [
        [Infinity, 1],
        [-Infinity, Infinity],
        [Infinity, Infinity],
      ])
        expect(await on([1, 1], target), `vs [${target.join(', ')}]`).toBeNaN();
    });

    it("scores do not depend on a vector's length: 1e-30 and 3e38 vectors score as unit ones", async () => {
      for (const factor of [1e-30, 1e-20, 1e20, 3e38]) {
        expect(await on([factor, factor], [1, 1]), `at ${factor}`).toBeCloseTo(1, 6);
        expect(await on([0.3 * factor, 0.4 * factor], [4e-25, -3e-25]), `at ${factor} vs a 1e-25 vector`).toBeCloseTo(
          0,
          6,
        );
        expect(await on([factor, 0, factor], [2e30, 2e30, 0]), `at ${factor} vs a 2e30 vector`).toBeCloseTo(0.5, 6);
      }
    });
  });
}
