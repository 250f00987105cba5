// Property-based tests of the search ops (fast-check, fixed seed) on every real backend against the reference:
// topK over rows with NaN, infinities, signed zeros and ties (exact: its order is defined), cosineSimilarity with
// zero rows and subnormal entries, then with NaN, infinities and rows scaled from 2^-100 to 2^124 ("agree" as in
// property-support.ts). Then the edges these properties once found backends disagreeing on (now fixed everywhere).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EPS32 } from '../conformance/case.ts';
import { AgreementBench, bitsOf, PROPERTY_TIMEOUT_MS, RUNS } from './property-support.ts';

let bench: AgreementBench;

beforeAll(async () => {
  bench = await AgreementBench.create();
}, 60_000);

afterAll(async () => {
  await bench.dispose();
});

describe('search ops agree with the reference, special values included', () => {
  it('topK of rows with NaN, infinities, signed zeros and ties: the same values (bit for bit) and indices everywhere', async () => {
    // topK does no arithmetic: its order is defined exactly (descending, ties to the lower index, NaN below -Inf),
    // so values and indices must match exactly. GPUs see subnormals flushed (see top), as ties with zero.
    const value = fc.oneof(
      { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 5 },
      { arbitrary: fc.float({ noNaN: true }), weight: 3 },
      { arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 1e-40), weight: 2 },
    );
    const input = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 40 })).chain(([rows, n]) =>
      fc.tuple(fc.constant([rows, n] as const), fc.array(value, { minLength: rows * n, maxLength: rows * n }), fc.integer({ min: 1, max: n })),
    );
    await fc.assert(
      fc.asyncProperty(input, async ([[rows, n], values, k]) => {
        for (const flush of [false, true]) {
          const chosen = bench.backends.filter((b) => b.gpu === flush);
          if (chosen.length === 0) continue;
          const x = bench.f32(values, [rows, n], flush);
          const [wantValues, wantIndices] = await bench.allOutputsOn({ op: 'topK', x, k }, 'reference');
          for (const backend of chosen) {
            const [gotValues, gotIndices] = await bench.allOutputsOn({ op: 'topK', x, k }, backend.name);
            const where = `topK k=${k} of [${rows}, ${n}] on ${backend.name}`;
            expect(bitsOf(gotValues), where).toEqual(bitsOf(wantValues));
            expect(gotIndices, where).toEqual(wantIndices);
          }
          x.dispose();
        }
      }),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('cosineSimilarity with zero rows, subnormal and signed-zero entries', async () => {
    // A zero vector scores 0 (the op's definition). A non-zero row starts with a non-zero multiple of 1/128 in
    // [-8, 8]; the rest are such multiples, zeros, a few subnormals and -0s. Tolerance as
    // test/conformance/cases/search.ts: 1e-6 + 2 d sqrt(d) eps, absolute (scores are in [-1, 1]).
    const normal = fc.integer({ min: -1024, max: 1024 }).map((i) => i / 128);
    const entry = fc.oneof({ arbitrary: normal, weight: 9 }, { arbitrary: fc.constantFrom(1e-40, -1e-40, -0), weight: 1 });
    const nonZeroStart = fc.integer({ min: 1, max: 1024 }).chain((i) => fc.constantFrom(i / 128, -i / 128));
    const row = (d: number): fc.Arbitrary<number[]> =>
      fc.oneof(
        { arbitrary: fc.tuple(nonZeroStart, fc.array(entry, { minLength: d - 1, maxLength: d - 1 })).map(([first, rest]) => [first, ...rest]), weight: 4 },
        { arbitrary: fc.constant(new Array<number>(d).fill(0)), weight: 1 },
      );
    await checkCosineRows(row);
  }, PROPERTY_TIMEOUT_MS);

  it('cosineSimilarity with NaN, infinities and rows whose f32 sums of squares under- or overflow', async () => {
    // The op's rules (CosineSimilarityOp): NaN in either row -> NaN; else a zero row -> 0; else an infinity -> NaN;
    // else the cosine, independent of length. Rows as above, each scaled by a power of two or ten from 2^-100 to
    // 2^124 (sums of squares from far below f32's smallest normal to far above its largest), a few entries NaN or
    // +-Inf.
    const normal = fc.integer({ min: -1024, max: 1024 }).map((i) => i / 128);
    const special = fc.constantFrom(Number.NaN, Infinity, -Infinity);
    const entry = fc.oneof({ arbitrary: normal, weight: 30 }, { arbitrary: fc.constantFrom(1e-40, -0), weight: 2 }, { arbitrary: special, weight: 1 });
    const nonZeroStart = fc.integer({ min: 1, max: 1024 }).chain((i) => fc.constantFrom(i / 128, -i / 128));
    const factor = fc.constantFrom(1, 2 ** -100, 1e-30, 1e-20, 1e-10, 1e10, 1e20, 1e30, 2 ** 124);
    const row = (d: number): fc.Arbitrary<number[]> =>
      fc.oneof(
        { arbitrary: fc.tuple(nonZeroStart, fc.array(entry, { minLength: d - 1, maxLength: d - 1 }), factor).map(([first, rest, f]) => [first, ...rest].map((v) => v * f)), weight: 5 },
        { arbitrary: fc.constant(new Array<number>(d).fill(0)), weight: 1 },
      );
    await checkCosineRows(row);
  }, PROPERTY_TIMEOUT_MS);
});

/**
 * cosineSimilarity of 1-3 queries x 1-6 targets of dimension 1-40, rows drawn from `row`, on every backend against
 * the reference: 1e-6 + 2 d sqrt(d) eps absolute (test/conformance/cases/search.ts; scores are in [-1, 1]).
 */
async function checkCosineRows(row: (d: number) => fc.Arbitrary<number[]>): Promise<void> {
  const input = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 40 })).chain(([q, t, d]) =>
    fc.tuple(fc.constant([q, t, d] as const), fc.array(row(d), { minLength: q, maxLength: q }), fc.array(row(d), { minLength: t, maxLength: t })),
  );
  await fc.assert(
    fc.asyncProperty(input, async ([[q, t, d], queries, targets]) => {
      await bench.checkEveryBackend((flush) => {
        const a = bench.f32(queries.flat(), [q, d], flush);
        const b = bench.f32(targets.flat(), [t, d], flush);
        return { op: { op: 'cosineSimilarity', queries: a, targets: b }, inputs: [a, b] };
      }, { abs: 1e-6 + 2 * d * Math.sqrt(d) * EPS32, rel: 0 });
    }),
    RUNS,
  );
}

/** cosineSimilarity of one query against one target on every backend, by backend name. */
async function cosineEverywhere(query: readonly number[], target: readonly number[]): Promise<Record<string, number>> {
  const a = bench.engine.tensor(Float32Array.from(query), [1, query.length]);
  const b = bench.engine.tensor(Float32Array.from(target), [1, target.length]);
  const scores: Record<string, number> = {};
  for (const name of ['reference', ...bench.backends.map((x) => x.name)]) scores[name] = (await bench.outputOn({ op: 'cosineSimilarity', queries: a, targets: b }, name))[0] ?? Number.NaN;
  a.dispose();
  b.dispose();
  return scores;
}

// Found by the properties above: backends once disagreed on each of these (WebGPU gave 0 for NaN, the reference
// and ROCm NaN for a zero vector against Inf, every f32 kernel 0 or NaN for 1e-30 and 3e38 vectors).
describe('cosineSimilarity edges every backend now agrees on (the rules of CosineSimilarityOp)', () => {
  it('a NaN in either vector makes the score NaN, also against a zero vector', async () => {
    for (const [query, target] of [[[1, 2], [Number.NaN, 1]], [[Number.NaN, 0], [1, 1]], [[0, 0], [Number.NaN, 1]], [[Number.NaN, 0], [0, 0]], [[Infinity, 1], [1, Number.NaN]]]) {
      const scores = await cosineEverywhere(query ?? [], target ?? []);
      for (const [name, score] of Object.entries(scores)) expect(score, `${name}: [${query?.join(', ')}] vs [${target?.join(', ')}]`).toBeNaN();
    }
  });

  it('a zero vector scores 0 even against a vector holding an infinity; otherwise an infinity gives NaN', async () => {
    for (const target of [[Infinity, 1], [-Infinity, Infinity], [1e-30, 0], [3e38, 3e38]]) {
      const scores = await cosineEverywhere([0, -0], target);
      for (const [name, score] of Object.entries(scores)) expect(Object.is(score, 0), `${name} vs [${target.join(', ')}]: ${score}`).toBe(true);
    }
    for (const target of [[Infinity, 1], [-Infinity, Infinity], [Infinity, Infinity]]) {
      const scores = await cosineEverywhere([1, 1], target);
      for (const [name, score] of Object.entries(scores)) expect(score, `${name} vs [${target.join(', ')}]`).toBeNaN();
    }
  });

  it('scores do not depend on a vector\'s length: 1e-30 and 3e38 vectors score as unit ones', async () => {
    for (const factor of [1e-30, 1e-20, 1e20, 3e38]) {
      const scores = await cosineEverywhere([factor, factor], [1, 1]);
      for (const [name, score] of Object.entries(scores)) expect(score, `${name} at ${factor}`).toBeCloseTo(1, 6);
      const against = await cosineEverywhere([0.3 * factor, 0.4 * factor], [4e-25, -3e-25]);
      for (const [name, score] of Object.entries(against)) expect(score, `${name} at ${factor} vs a 1e-25 vector`).toBeCloseTo(0, 6);
      const tilted = await cosineEverywhere([factor, 0, factor], [2e30, 2e30, 0]);
      for (const [name, score] of Object.entries(tilted)) expect(score, `${name} at ${factor} vs a 2e30 vector`).toBeCloseTo(0.5, 6);
    }
  });
});
