// BatchEngine: many concurrent callers each get exactly their own result, batches form as configured, a failed
// batch rejects only its callers, bad queries reject only their caller, close() flushes.
import { AllBackendsFailedError, Engine, InvalidArgumentError } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cosineScores, expectHitsMatch, randomVectors } from '../vectors/testing/brute-force.ts';
import { VectorOps } from '../vectors/vector-ops.ts';
import { BatchEngine, type BatchSearchTarget } from './batch-engine.ts';
import type { SearchHit } from '../vectors/search-hit.ts';
import { BatchEngineClosedError, BatchSearchError } from './errors.ts';

const reference = await Engine.create({ backends: [new ReferenceBackend()] });
const wasm = await Engine.create({ backends: [new WasmBackend()] });
afterAll(async () => {
  await reference.dispose();
  await wasm.dispose();
});

const dim = 24;
const targets = randomVectors(300, dim, 1);
const queries = randomVectors(200, dim, 2);
const queryOf = (i: number): Float32Array => queries.slice(i * dim, (i + 1) * dim);

describe('BatchEngine', () => {
  it('gives 200 concurrent callers exactly the result of their own search (distinct queries and k)', async () => {
    const ops = await VectorOps.create(reference, targets, dim, { matmulMinQueries: Infinity });
    const batcher = new BatchEngine(ops, { maxBatchSize: 64, maxWaitMs: 5 });
    const kOf = (i: number): number => 1 + (i % 10);
    const batched = await Promise.all(Array.from({ length: 200 }, (_, i) => batcher.search(queryOf(i), kOf(i))));
    for (let i = 0; i < 200; i++) expect(batched[i]).toEqual(await ops.search(queryOf(i), kOf(i)));
    // All 200 arrived in one tick: three full batches of 64 left at once, the last 8 when the timer fired.
    const stats = batcher.stats();
    expect([
      stats.batches,
      stats.queries,
      stats.meanBatchSize,
      stats.failedBatches,
      stats.pending,
      stats.inFlight,
    ]).toEqual([4, 200, 50, 0, 0, 0]);
    expect(stats.meanWaitMs).toBeGreaterThanOrEqual(0);
    await batcher.close();
    ops.dispose();
  });

  it('batches on the matmul kernel (wasm) match the float64 oracle', async () => {
    const ops = await VectorOps.create(wasm, targets, dim);
    const batcher = new BatchEngine(ops, { maxBatchSize: 32, maxWaitMs: 1 });
    const batched = await Promise.all(Array.from({ length: 100 }, (_, i) => batcher.search(queryOf(i), 5)));
    batched.forEach((hits, i) => {
      expectHitsMatch(hits, cosineScores(queries, i, targets, dim), 5, 1e-5);
    });
    expect(batcher.stats().batches).toBe(4);
    await batcher.close();
    ops.dispose();
  });

  it('maxBatchSize 1 sends every query alone', async () => {
    const ops = await VectorOps.create(reference, targets, dim);
    const batcher = new BatchEngine(ops, { maxBatchSize: 1 });
    await Promise.all([0, 1, 2].map((i) => batcher.search(queryOf(i), 3)));
    expect(batcher.stats()).toMatchObject({ batches: 3, queries: 3, meanBatchSize: 1 });
    await batcher.close();
    ops.dispose();
  });

  it('a failed batch rejects only its own callers, with the failure as cause', async () => {
    const faulty = new FaultInjectingBackend(new ReferenceBackend(), (call) => (call === 1 ? 'reject' : undefined));
    const engine = await Engine.create({ backends: [faulty] });
    const ops = await VectorOps.create(engine, targets, dim, { matmulMinQueries: Infinity });
    const batcher = new BatchEngine(ops, { maxBatchSize: 4, maxWaitMs: 1000 });
    const first = await Promise.allSettled([0, 1, 2, 3].map((i) => batcher.search(queryOf(i), 2)));
    const second = await Promise.all([4, 5, 6, 7].map((i) => batcher.search(queryOf(i), 2)));
    for (const outcome of first) {
      expect(outcome.status).toBe('rejected');
      const reason: unknown = outcome.status === 'rejected' ? outcome.reason : undefined;
      expect(reason).toBeInstanceOf(BatchSearchError);
      expect(reason instanceof BatchSearchError && reason.batchSize).toBe(4);
      expect(reason instanceof Error && reason.cause).toBeInstanceOf(AllBackendsFailedError);
    }
    for (let j = 0; j < 4; j++) expect(second[j]).toEqual(await ops.search(queryOf(4 + j), 2));
    expect(batcher.stats()).toMatchObject({ batches: 2, failedBatches: 1 });
    await batcher.close();
    await engine.dispose();
  });

  it('a bad query or k rejects its caller alone, before batching', async () => {
    const ops = await VectorOps.create(reference, targets, dim);
    const batcher = new BatchEngine(ops, { maxBatchSize: 8, maxWaitMs: 1 });
    const calls = [
      batcher.search(queryOf(0), 3),
      batcher.search(new Float32Array(dim), 3),
      batcher.search(new Float32Array(dim + 1).fill(1), 3),
      batcher.search(queryOf(1), 301),
      batcher.search(queryOf(2), 3),
    ];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled']);
    for (const o of outcomes.slice(1, 4))
      expect(o.status === 'rejected' && o.reason).toBeInstanceOf(InvalidArgumentError);
    expect(batcher.stats()).toMatchObject({ batches: 1, queries: 2 });
    await batcher.close();
    ops.dispose();
  });

  it('close() dispatches waiting queries without waiting for the timer, then rejects new ones', async () => {
    const ops = await VectorOps.create(reference, targets, dim);
    const batcher = new BatchEngine(ops, { maxBatchSize: 100, maxWaitMs: 600_000 });
    const waiting = [0, 1, 2].map((i) => batcher.search(queryOf(i), 4));
    expect(batcher.stats().pending).toBe(3);
    await batcher.close();
    const results = await Promise.all(waiting);
    for (let i = 0; i < 3; i++) expect(results[i]).toEqual(await ops.search(queryOf(i), 4));
    expect(batcher.stats()).toMatchObject({ batches: 1, queries: 3, pending: 0, inFlight: 0 });
    await expect(batcher.search(queryOf(0), 1)).rejects.toThrow(BatchEngineClosedError);
    ops.dispose();
  });

  it('runs at most maxInFlight batches at once; queries arriving meanwhile gather into the next batch', async () => {
    // A target whose searches finish only when the test says so; each hit names its query's first value.
    const started: Array<{ size: number; finish: () => void }> = [];
    let running = 0;
    let mostRunning = 0;
    const target: BatchSearchTarget = {
      dim: 2,
      count: 10,
      searchMany(batch: Float32Array): Promise<SearchHit[][]> {
        running++;
        mostRunning = Math.max(mostRunning, running);
        return new Promise((resolve) => {
          const rows = Array.from({ length: batch.length / 2 }, (_, i) => [{ index: batch[i * 2] ?? -1, score: 1 }]);
          started.push({
            size: rows.length,
            finish: () => {
              running--;
              resolve(rows);
            },
          });
        });
      },
    };
    const batcher = new BatchEngine(target, { maxBatchSize: 4, maxWaitMs: 0, maxInFlight: 1 });
    const calls = Array.from({ length: 10 }, (_, i) => batcher.search(Float32Array.of(i, 1), 1));
    expect(started.map((b) => b.size)).toEqual([4]);
    expect(batcher.stats()).toMatchObject({ pending: 6, inFlight: 1 });
    started[0]?.finish();
    await calls[3];
    await vi.waitFor(() => expect(started.map((b) => b.size)).toEqual([4, 4]));
    started[1]?.finish();
    await calls[7];
    // The last two leave when the timer fires (maxWaitMs 0: the next turn of the event loop).
    await vi.waitFor(() => expect(started.map((b) => b.size)).toEqual([4, 4, 2]));
    started[2]?.finish();
    const results = await Promise.all(calls);
    expect(results.map((hits) => hits[0]?.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(mostRunning).toBe(1);
    await batcher.close();
  });

  it('rejects bad options with InvalidArgumentError', async () => {
    const ops = await VectorOps.create(reference, targets, dim);
    expect(() => new BatchEngine(ops, { maxBatchSize: 0 })).toThrow(/maxBatchSize = 0/);
    expect(() => new BatchEngine(ops, { maxBatchSize: 2.5 })).toThrow(InvalidArgumentError);
    expect(() => new BatchEngine(ops, { maxWaitMs: -1 })).toThrow(/maxWaitMs = -1/);
    expect(() => new BatchEngine(ops, { maxWaitMs: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => new BatchEngine(ops, { maxInFlight: 0 })).toThrow(/maxInFlight = 0/);
    ops.dispose();
  });
});
