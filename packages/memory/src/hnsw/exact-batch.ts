// searchBatch's exact route: brute-force cosine top-k of a whole batch through the engine (VectorOps: one scores
// op and one topK op per slice, the stored unit vectors kept resident on the backend the scheduler picks).
//
// Why only on a GPU: per query, the graph visits a few thousand vectors while brute force scores all of them. On
// the CPU that is 50-100x more work than the graph (measured on 341k x 100-d words: see the memory bench), so the
// graph wins at any batch size; a GPU scores a batch of >= 1,000 queries against 341k vectors as one matmul in
// milliseconds, and the answers are exact. HNSW's own candidate scoring (<= 32 neighbours at a time) is far below
// the size at which an engine op pays for its dispatch, so the graph route stays in plain loops.
import { InvalidArgumentError, type Engine } from '@tandem/core';
import type { SearchHit } from '../vectors/search-hit.ts';
import { VectorOps } from '../vectors/vector-ops.ts';

/** How searchBatch answers: HNSW per query, brute force through the engine, or chosen by batch and backends. */
export type BatchMode = 'auto' | 'graph' | 'exact';

/** Smallest batch the auto mode sends to the engine. */
export const EXACT_MIN_QUERIES = 256;

/** The engine route of one index; the resident copy of its vectors is made on first use and dropped on insert. */
export class ExactBatch {
  private ops: Promise<VectorOps> | undefined;

  /** `engine` undefined: only the graph route exists. */
  constructor(private readonly engine: Engine | undefined) {}

  /** Whether a batch of `rows` queries in `mode` goes to the engine. */
  chooses(mode: BatchMode, rows: number): boolean {
    if (mode === 'graph') return false;
    if (mode === 'exact') {
      if (this.engine === undefined)
        throw new InvalidArgumentError(
          'searchBatch.mode',
          mode,
          'needs the index to be built or loaded with an engine',
        );
      return true;
    }
    if (mode !== 'auto') throw new InvalidArgumentError('searchBatch.mode', mode, "must be 'auto', 'graph' or 'exact'");
    return this.engine !== undefined && rows >= EXACT_MIN_QUERIES && hasHardwareGpu(this.engine);
  }

  /** Exact top-k of each query against the first `count` unit vectors of `vectors`. */
  async search(
    vectors: Float32Array,
    count: number,
    dim: number,
    queries: Float32Array,
    k: number,
  ): Promise<SearchHit[][]> {
    const engine = this.engine;
    if (engine === undefined)
      throw new InvalidArgumentError(
        'searchBatch.mode',
        'exact',
        'needs the index to be built or loaded with an engine',
      );
    this.ops ??= VectorOps.create(engine, vectors.subarray(0, count * dim), dim);
    const ops = await this.ops;
    // This route exists for GPUs (see above), so its two ops ask for one: under 'auto' a cost model that has seen
    // only single-query searches put the batch's scores matmul on the CPU (hundreds of times slower than the GPU) and
    // its topK elsewhere, moving gigabytes (docs/decisions.md, issue 29, memory-exact-probe). gpu-preferred still falls back to the CPU on failure.
    // With no hardware GPU (mode 'exact' asked for explicitly), 'auto': a software GPU is the CPU, only slower.
    return ops.searchMany(queries, Math.min(k, count), { strategy: hasHardwareGpu(engine) ? 'gpu-preferred' : 'auto' });
  }

  /** Drops the resident copy (after an insert, or on dispose). */
  invalidate(): void {
    const ops = this.ops;
    this.ops = undefined;
    void ops?.then(
      (o) => o.dispose(),
      () => undefined,
    );
  }
}

/** A usable GPU backend whose device is not emulated on the CPU (SwiftShader scores 341k vectors 100x slower than the graph). */
function hasHardwareGpu(engine: Engine): boolean {
  return engine
    .backends()
    .some(
      (b) =>
        b.kind === 'gpu' &&
        b.available &&
        !b.software &&
        (b.health.state === 'healthy' || b.health.state === 'degraded'),
    );
}
