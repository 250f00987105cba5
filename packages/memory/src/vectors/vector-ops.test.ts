// VectorOps against a float64 brute-force oracle on the reference and wasm backends, both score kernels,
// split batches, and every kind of bad input.
import { DisposedError, Engine, InvalidArgumentError } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { cosineScores, expectHitsMatch, randomVectors } from './testing/brute-force.ts';
import { VectorOps } from './vector-ops.ts';

const reference = await Engine.create({ backends: [new ReferenceBackend()] });
const wasm = await Engine.create({ backends: [new WasmBackend()] });
afterAll(async () => {
  await reference.dispose();
  await wasm.dispose();
});

describe('VectorOps search', () => {
  it.each([
    ['reference', 3, 50, 5],
    ['reference', 100, 300, 10],
    ['wasm', 768, 400, 10],
    ['wasm', 7, 20, 20],
  ] as const)('%s: dim %i, %i vectors, top %i equals the float64 oracle', async (engineName, dim, count, k) => {
    const engine = engineName === 'wasm' ? wasm : reference;
    const targets = randomVectors(count, dim, dim + count);
    const queries = randomVectors(3, dim, dim + count + 1);
    const ops = await VectorOps.create(engine, targets, dim);
    expect([ops.count, ops.dim]).toEqual([count, dim]);
    for (let q = 0; q < 3; q++) {
      const hits = await ops.search(queries.slice(q * dim, (q + 1) * dim), k);
      expectHitsMatch(hits, cosineScores(queries, q, targets, dim), k, 1e-5);
    }
    ops.dispose();
  });

  it('finds a stored vector first with score 1, whatever its scale', async () => {
    const dim = 16;
    const targets = randomVectors(64, dim, 5);
    const ops = await VectorOps.create(wasm, targets, dim);
    const query = ops.vector(41).map((v) => v * 1000);
    const [best] = await ops.search(query, 1);
    expect(best?.index).toBe(41);
    expect(best?.score).toBeCloseTo(1, 6);
    ops.dispose();
  });

  it('searchMany gives each query the result of its own search, on the cosine and the matmul kernel', async () => {
    const dim = 32;
    const targets = randomVectors(500, dim, 11);
    const queries = randomVectors(40, dim, 12);
    const byCosine = await VectorOps.create(wasm, targets, dim, { matmulMinQueries: Infinity });
    const byMatmul = await VectorOps.create(wasm, targets, dim, { matmulMinQueries: 2 });
    const many = [await byCosine.searchMany(queries, 7), await byMatmul.searchMany(queries, 7)];
    for (const rows of many) {
      expect(rows.length).toBe(40);
      rows.forEach((hits, q) => {
        expectHitsMatch(hits, cosineScores(queries, q, targets, dim), 7, 1e-5);
      });
    }
    for (let q = 0; q < 40; q++) {
      const single = await byCosine.search(queries.slice(q * dim, (q + 1) * dim), 7);
      expect(many[0]?.[q]).toEqual(single);
    }
    byCosine.dispose();
    byMatmul.dispose();
  });

  it('splits a batch whose scores matrix exceeds maxScoresBytes without changing the result', async () => {
    const dim = 8;
    const targets = randomVectors(100, dim, 21);
    const queries = randomVectors(25, dim, 22);
    const whole = await VectorOps.create(reference, targets, dim, { matmulMinQueries: Infinity });
    const split = await VectorOps.create(reference, targets, dim, {
      matmulMinQueries: Infinity,
      maxScoresBytes: 3 * 100 * 4,
    });
    expect(await split.searchMany(queries, 4)).toEqual(await whole.searchMany(queries, 4));
    expect(await split.searchMany(new Float32Array(0), 4)).toEqual([]);
    whole.dispose();
    split.dispose();
  });

  it('scores up to 31 queries with cosineSimilarity and 32 or more with matmul, by default', async () => {
    const engine = await Engine.create({ backends: [new WasmBackend()] });
    const dim = 8;
    const targets = randomVectors(50, dim, 41);
    const ops = await VectorOps.create(engine, targets, dim, { maxScoresBytes: 40 * 50 * 4 });
    const many = randomVectors(80, dim, 42);
    await ops.searchMany(many.subarray(0, 31 * dim), 3);
    const rows = await ops.searchMany(many, 3);
    const scoreOps = engine.telemetry
      .opEvents()
      .filter((e) => e.op !== 'topK')
      .map((e) => `${e.op} ${e.shapes}`);
    // 80 queries split at 40 per op (maxScoresBytes): two matmuls of 40.
    expect(scoreOps).toEqual(['cosineSimilarity 31x8, 50x8', 'matmul 40x8, 8x50', 'matmul 40x8, 8x50']);
    rows.forEach((hits, q) => {
      expectHitsMatch(hits, cosineScores(many, q, targets, dim), 3, 1e-5);
    });
    ops.dispose();
    await engine.dispose();
  });

  it('vector(index) returns a copy of the stored vector as given, not normalised', async () => {
    const targets = Float32Array.of(3, 4, 0, 2);
    const ops = await VectorOps.create(reference, targets, 2);
    targets[0] = 99;
    const v = ops.vector(0);
    expect(Array.from(v)).toEqual([3, 4]);
    v[0] = -1;
    expect(Array.from(ops.vector(0))).toEqual([3, 4]);
    expect(Array.from(ops.vector(1))).toEqual([0, 2]);
    ops.dispose();
  });
});

describe('VectorOps rejects bad input with InvalidArgumentError', () => {
  const dim = 4;
  const good = randomVectors(6, dim, 31);

  it.each([
    ['a zero vector', () => Float32Array.of(1, 2, 3, 4, 0, 0, 0, 0), dim, /row 1.*non-zero norm/],
    ['a NaN', () => Float32Array.of(1, Number.NaN, 3, 4), dim, /vectors\[1\].*finite/],
    ['an infinity', () => Float32Array.of(1, 2, Number.POSITIVE_INFINITY, 4), dim, /vectors\[2\].*finite/],
    ['a length that is not a multiple of dim', () => new Float32Array(10), dim, /length = 10.*multiple/],
    ['no vectors', () => new Float32Array(0), dim, /at least one vector/],
    ['dim 0', () => good, 0, /dim = 0/],
    ['a fractional dim', () => good, 2.5, /dim = 2.5/],
  ] as const)('create with %s', async (_name, vectors, d, message) => {
    const attempt = VectorOps.create(reference, vectors(), d);
    await expect(attempt).rejects.toThrow(InvalidArgumentError);
    await expect(VectorOps.create(reference, vectors(), d)).rejects.toThrow(message);
  });

  it('search with a bad k, query or index', async () => {
    const ops = await VectorOps.create(reference, good, dim);
    const query = Float32Array.of(1, 0, 0, 0);
    await expect(ops.search(query, 7)).rejects.toThrow(/search\.k = 7: must be an integer in \[1, 6\]/);
    await expect(ops.search(query, 0)).rejects.toThrow(InvalidArgumentError);
    await expect(ops.search(query, 1.5)).rejects.toThrow(InvalidArgumentError);
    await expect(ops.search(new Float32Array(dim), 1)).rejects.toThrow(/search\.query\[row 0\].*non-zero norm/);
    await expect(ops.search(Float32Array.of(1, Number.NaN, 0, 0), 1)).rejects.toThrow(/search\.query\[1\].*finite/);
    await expect(ops.search(new Float32Array(dim + 1).fill(1), 1)).rejects.toThrow(/search\.query\.length = 5/);
    await expect(ops.searchMany(new Float32Array(dim * 2 + 1).fill(1), 1)).rejects.toThrow(
      /searchMany\.queries\.length = 9/,
    );
    await expect(ops.searchMany(Float32Array.of(1, 1, 1, 1, 0, 0, 0, 0), 1)).rejects.toThrow(
      /searchMany\.queries\[row 1\]/,
    );
    expect(() => ops.vector(6)).toThrow(/vector\.index = 6/);
    expect(() => ops.vector(-1)).toThrow(InvalidArgumentError);
    ops.dispose();
  });

  it('rejects use after dispose with DisposedError', async () => {
    const ops = await VectorOps.create(reference, good, dim);
    ops.dispose();
    ops.dispose();
    await expect(ops.search(Float32Array.of(1, 0, 0, 0), 1)).rejects.toThrow(DisposedError);
    expect(() => ops.vector(0)).toThrow(DisposedError);
  });
});
