// BatchEngine: gathers concurrent single-query searches into one searchMany call.
//
// Latency versus throughput. A query that arrives waits at most maxWaitMs for others; as soon as maxBatchSize
// queries are waiting the batch leaves at once. One batch is one matmul-shaped op ([q, dim] x [dim, count]) plus
// one topK, scheduled like any other op, so the per-op overhead (dispatch, transfers, a GPU round trip) is paid
// once per batch instead of once per query, and from matmulMinQueries queries up VectorOps scores with matmul
// (1.5-2.3x the cosine kernel's throughput on the wasm backend for 64-256 queries; on a GPU the batch is what
// makes it worth it). Measured on the 341,479 wink word vectors (dim 100, wasm, one thread, 512 concurrent
// callers, top 10): 124 queries/s unbatched, 272 with batches of 16, 320 with 64, 375 with 256.
// The price is latency: every caller waits for its batch to fill or for maxWaitMs, then for the whole batch.
//  - interactive callers, light load: small maxWaitMs (0-2 ms), the batch is whatever arrived meanwhile;
//  - heavy load or throughput jobs: larger maxBatchSize (64-1024) and maxWaitMs (5-20 ms);
//  - maxBatchSize 1 turns batching off (every query is its own searchMany).
// At most maxInFlight batches run at a time (default 2: one runs while the next is prepared); queries arriving
// meanwhile gather into the next batch, so under load batches grow towards maxBatchSize by themselves and memory
// stays bounded (each batch holds a [q, count] scores matrix). Under steady load batches fill before the timer
// fires, so maxWaitMs bounds the latency added only at low load.
// Each caller gets exactly its own row of the batch's result, cut to its own k (a batch runs with the largest k
// of its callers; topK's order is total, so a shorter list is a prefix of a longer one).
import { InvalidArgumentError, monotonicClock, startTimer, cancelTimer, type Clock, type Strategy } from '@tandem/core';
import type { SearchHit } from '../vectors/search-hit.ts';
import { checkK, checkRows } from '../vectors/vector-checks.ts';
import type { SearchOptions } from '../vectors/vector-ops.ts';
import { BatchEngineClosedError, BatchSearchError } from './errors.ts';

/** What a BatchEngine searches: VectorOps, or anything with the same searchMany. */
export interface BatchSearchTarget {
  /** Floats per vector. */
  readonly dim: number;
  /** Stored vectors (k may not exceed it). */
  readonly count: number;
  /** For each of the q queries (q x dim floats), its k best hits. */
  searchMany(queries: Float32Array, k: number, options?: SearchOptions): Promise<SearchHit[][]>;
}

/** Options of a BatchEngine. */
export interface BatchEngineOptions {
  /** Most queries in one batch (default 64); a full batch is dispatched at once. */
  readonly maxBatchSize?: number;
  /** Longest a query waits for others before its batch is dispatched, ms (default 2). */
  readonly maxWaitMs?: number;
  /** Most batches running at once (default 2); further queries wait and gather into the next batch. */
  readonly maxInFlight?: number;
  /** Strategy of every batch's searchMany (default: the target's). */
  readonly strategy?: Strategy;
  /** Time source for the wait statistics (default performance.now). */
  readonly clock?: Clock;
}

/** Counters since the engine was made. */
export interface BatchStats {
  /** Batches dispatched. */
  batches: number;
  /** Queries dispatched in them. */
  queries: number;
  /** queries / batches (0 before the first batch). */
  meanBatchSize: number;
  /** Mean time a query waited between search() and its batch's dispatch, ms. */
  meanWaitMs: number;
  /** Batches whose searchMany failed (their callers were rejected). */
  failedBatches: number;
  /** Queries waiting for a batch now. */
  pending: number;
  /** Batches dispatched and not settled yet. */
  inFlight: number;
}

/** A caller waiting for its batch. */
interface Waiting {
  readonly query: Float32Array;
  readonly k: number;
  readonly enqueuedAt: number;
  readonly resolve: (hits: SearchHit[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Gathers concurrent searches into batches (see the trade-off above). */
export class BatchEngine {
  private readonly target: BatchSearchTarget;
  private readonly maxBatchSize: number;
  private readonly maxWaitMs: number;
  private readonly maxInFlight: number;
  private readonly searchOptions: SearchOptions;
  private readonly clock: Clock;
  private queue: Waiting[] = [];
  private timer: unknown;
  /** Set when the timer fired: the oldest waiting query has waited maxWaitMs; its batch leaves when a slot is free. */
  private oldestDue = false;
  private inFlight = 0;
  /** close() calls waiting for the queue and the batches in flight to drain. */
  private idleWaiters: Array<() => void> = [];
  private closed = false;
  private batches = 0;
  private queries = 0;
  private failedBatches = 0;
  private totalWaitMs = 0;

  constructor(ops: BatchSearchTarget, options: BatchEngineOptions = {}) {
    const { maxBatchSize = 64, maxWaitMs = 2, maxInFlight = 2 } = options;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1)
      throw new InvalidArgumentError('BatchEngine.maxBatchSize', maxBatchSize, 'must be an integer >= 1');
    if (!(maxWaitMs >= 0 && maxWaitMs <= 2 ** 31 - 1))
      throw new InvalidArgumentError('BatchEngine.maxWaitMs', maxWaitMs, `must be a number in [0, ${2 ** 31 - 1}]`);
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new InvalidArgumentError('BatchEngine.maxInFlight', maxInFlight, 'must be an integer >= 1');
    this.target = ops;
    this.maxInFlight = maxInFlight;
    this.maxBatchSize = maxBatchSize;
    this.maxWaitMs = maxWaitMs;
    this.searchOptions = options.strategy === undefined ? {} : { strategy: options.strategy };
    this.clock = options.clock ?? monotonicClock;
  }

  /**
   * The k best hits for `query` (dim floats; copied), searched together with whatever other queries arrive
   * within maxWaitMs. A bad query or k rejects this call alone with InvalidArgumentError; a failed batch rejects
   * its callers with BatchSearchError (cause: the failure); after close(), BatchEngineClosedError.
   */
  search(query: Float32Array, k: number): Promise<SearchHit[]> {
    try {
      if (this.closed) throw new BatchEngineClosedError();
      const { dim, count } = this.target;
      if (!(query instanceof Float32Array) || query.length !== dim) {
        throw new InvalidArgumentError(
          'BatchEngine.search.query.length',
          query instanceof Float32Array ? query.length : typeof query,
          `must be a Float32Array of the dimension (${dim})`,
        );
      }
      checkK('BatchEngine.search.k', k, count);
      checkRows('BatchEngine.search.query', query, 1, dim);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<SearchHit[]>((resolve, reject) => {
      this.queue.push({ query: query.slice(), k, enqueuedAt: this.clock(), resolve, reject });
      this.pump();
    });
  }

  /** Counters: batches, queries, mean batch size and wait, failures, queries pending and batches in flight. */
  stats(): BatchStats {
    return {
      batches: this.batches,
      queries: this.queries,
      meanBatchSize: this.batches === 0 ? 0 : this.queries / this.batches,
      meanWaitMs: this.queries === 0 ? 0 : this.totalWaitMs / this.queries,
      failedBatches: this.failedBatches,
      pending: this.queue.length,
      inFlight: this.inFlight,
    };
  }

  /** Dispatches the queries still waiting (without waiting for the timer), waits for every batch, then rejects new searches. */
  async close(): Promise<void> {
    this.closed = true;
    this.pump();
    if (this.queue.length === 0 && this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Dispatches every batch that is ready (full, due, or closing) while fewer than maxInFlight run; arms the timer. */
  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      if (!(this.closed || this.oldestDue || this.queue.length >= this.maxBatchSize)) break;
      this.dispatch();
    }
    if (this.queue.length > 0 && this.timer === undefined && !this.oldestDue) {
      const oldest = this.queue[0];
      const waited = oldest === undefined ? 0 : this.clock() - oldest.enqueuedAt;
      this.timer = startTimer(() => this.onTimer(), Math.max(0, this.maxWaitMs - waited));
    }
    if (this.queue.length === 0 && this.inFlight === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private onTimer(): void {
    this.timer = undefined;
    this.oldestDue = true;
    this.pump();
  }

  /** Sends up to maxBatchSize waiting queries, oldest first, as one searchMany. */
  private dispatch(): void {
    if (this.timer !== undefined) {
      cancelTimer(this.timer);
      this.timer = undefined;
    }
    this.oldestDue = false;
    const batch = this.queue.splice(0, this.maxBatchSize);
    const dim = this.target.dim;
    const queries = new Float32Array(batch.length * dim);
    const now = this.clock();
    let k = 1;
    for (let i = 0; i < batch.length; i++) {
      const waiting = batch[i];
      if (waiting === undefined) continue;
      queries.set(waiting.query, i * dim);
      k = Math.max(k, waiting.k);
      this.totalWaitMs += now - waiting.enqueuedAt;
    }
    this.batches++;
    this.queries += batch.length;
    this.inFlight++;
    void this.run(batch, queries, k).then(() => {
      this.inFlight--;
      this.pump();
    });
  }

  /** Runs one batch and hands each caller its own row, or the batch's failure. Never rejects. */
  private async run(batch: readonly Waiting[], queries: Float32Array, k: number): Promise<void> {
    let rows: SearchHit[][];
    try {
      rows = await this.target.searchMany(queries, k, this.searchOptions);
      if (rows.length !== batch.length)
        throw new Error(`searchMany returned ${rows.length} rows for ${batch.length} queries`);
    } catch (error) {
      this.failedBatches++;
      const failure = new BatchSearchError(batch.length, error);
      for (const waiting of batch) waiting.reject(failure);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const waiting = batch[i];
      if (waiting !== undefined) waiting.resolve((rows[i] ?? []).slice(0, waiting.k));
    }
  }
}
