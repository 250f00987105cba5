// VectorOps: brute-force cosine search of one or many queries against vectors kept resident as engine tensors.
//
// The stored vectors are normalised once, at create(), and uploaded as a single [count, dim] f32 tensor; the engine
// moves it to whichever backend the scheduler picks and keeps it there, so later searches move only the queries.
// Why normalised rather than a separate norms array: with unit targets the norm is folded into the data once, for
// every backend, so a batch of unit queries is scored by a plain matmul; a zero or non-finite vector is rejected
// at the only place it can enter. The caller's original vectors are kept on the host for vector(index).
//
// A search is two engine ops, each scheduled on its own:
//  - scores: a few queries run cosineSimilarity ([q, dim] x [count, dim] -> [q, count]); a batch of at least
//    matmulMinQueries unit queries runs matmul ([q, dim] x [dim, count]) against a transposed copy of the unit
//    targets, made once on first use and kept resident too. Measured on the wasm backend (one thread, 16,384
//    targets, median of 7): matmul is faster from 8 queries up at dim 100 (1.8x at 16, 2.3x at 256) and from
//    between 16 and 64 queries up at dim 768 (0.9x at 16, 1.5x at 64, 1.7x at 256); hence the default of 32;
//  - topK: the k best of each row.
// Both score kernels compute the same cosine up to f32 rounding (about 1e-6). Large batches are split so one
// scores matrix stays under maxScoresBytes.
// Edges (CosineSimilarityOp's rules): a NaN, infinite or zero vector is refused with InvalidArgumentError, stored or
// queried, so no score is NaN. Norms are taken in float64 and every query is normalised too, whichever kernel
// scores it, so vectors from 1e-45 (subnormal, which a GPU would flush to zero) to 3e38 score as unit ones.
import { DisposedError, InvalidArgumentError, type Engine, type Strategy, type Tensor } from '@tandem/core';
import { normalisedRows } from './normalise.ts';
import { disposeAll } from './dispose-all.ts';
import type { SearchHit } from './search-hit.ts';
import { checkDim, checkK, checkRows, rowCount } from './vector-checks.ts';

/** Options of VectorOps.create. */
export interface VectorOpsOptions {
  /** Strategy of every search that names none (default: the engine's). */
  readonly strategy?: Strategy;
  /** Largest scores matrix ([queries, count] f32) one op may produce, bytes (default 64 MiB); bigger batches are split. */
  readonly maxScoresBytes?: number;
  /**
   * Query batches at least this big are scored by matmul against a transposed copy of the targets (default 32);
   * Infinity never makes the copy (saves count x dim x 4 bytes on the host and on each backend that runs it).
   */
  readonly matmulMinQueries?: number;
}

/** Options of one search. */
export interface SearchOptions {
  /** Strategy for this call (default: the one given to create, else the engine's). */
  readonly strategy?: Strategy;
}

/** Default cap of one scores matrix: 64 MiB (fits WebGPU's default 128 MiB storage binding with room to spare). */
const DEFAULT_MAX_SCORES_BYTES = 64 * 1024 * 1024;

/** Default batch size from which matmul scores the queries (see the measurements at the top of this file). */
const DEFAULT_MATMUL_MIN_QUERIES = 32;

/** Cosine similarity search over stored vectors, every call scheduled across the engine's backends. */
export class VectorOps {
  /** Number of stored vectors. */
  readonly count: number;
  /** Floats per vector. */
  readonly dim: number;
  private readonly engine: Engine;
  private readonly originals: Float32Array;
  private readonly targets: Tensor<'f32'>;
  private readonly strategy: Strategy | undefined;
  private readonly queriesPerOp: number;
  private readonly matmulMinQueries: number;
  /** Unit targets transposed to [dim, count], made on the first matmul-sized batch. */
  private transposed: Promise<Tensor<'f32'>> | undefined;
  private disposed = false;

  private constructor(
    engine: Engine,
    originals: Float32Array,
    targets: Tensor<'f32'>,
    dim: number,
    options: VectorOpsOptions,
  ) {
    this.engine = engine;
    this.originals = originals;
    this.targets = targets;
    this.dim = dim;
    this.count = originals.length / dim;
    this.strategy = options.strategy;
    const maxBytes = options.maxScoresBytes ?? DEFAULT_MAX_SCORES_BYTES;
    this.queriesPerOp = Math.max(1, Math.floor(maxBytes / (this.count * 4)));
    this.matmulMinQueries = options.matmulMinQueries ?? DEFAULT_MATMUL_MIN_QUERIES;
  }

  /**
   * Stores `vectors` (count x dim floats, row-major; copied) for search. Throws InvalidArgumentError for a bad
   * dimension, a length that is not a multiple of it, no vectors, or a vector that is zero or holds NaN/infinity.
   */
  static async create(
    engine: Engine,
    vectors: Float32Array,
    dim: number,
    options: VectorOpsOptions = {},
  ): Promise<VectorOps> {
    checkDim('VectorOps.create.dim', dim);
    const count = rowCount('VectorOps.create.vectors', vectors, dim);
    if (count === 0)
      throw new InvalidArgumentError('VectorOps.create.vectors.length', 0, 'must hold at least one vector');
    const maxBytes = options.maxScoresBytes;
    if (maxBytes !== undefined && !(Number.isFinite(maxBytes) && maxBytes > 0)) {
      throw new InvalidArgumentError('VectorOps.create.maxScoresBytes', maxBytes, 'must be a finite number > 0');
    }
    const minQueries = options.matmulMinQueries;
    if (minQueries !== undefined && !(minQueries >= 1))
      throw new InvalidArgumentError(
        'VectorOps.create.matmulMinQueries',
        minQueries,
        'must be a number >= 1 (Infinity: never)',
      );
    const unit = normalisedRows('VectorOps.create.vectors', vectors, count, dim);
    const targets = engine.tensor(unit, [count, dim]);
    return new VectorOps(engine, vectors.slice(), targets, dim, options);
  }

  /** The k stored vectors most similar to `query` (dim floats), best first; ties go to the lower index. */
  async search(query: Float32Array, k: number, options: SearchOptions = {}): Promise<SearchHit[]> {
    this.assertLive();
    if (!(query instanceof Float32Array) || query.length !== this.dim) {
      throw new InvalidArgumentError(
        'search.query.length',
        query instanceof Float32Array ? query.length : typeof query,
        `must be a Float32Array of the dimension (${this.dim})`,
      );
    }
    const [hits] = await this.run(query, 1, k, options.strategy, 'search');
    return hits ?? [];
  }

  /** For each of the q queries (q x dim floats, row-major), its k best hits, best first. */
  async searchMany(queries: Float32Array, k: number, options: SearchOptions = {}): Promise<SearchHit[][]> {
    this.assertLive();
    const rows = rowCount('searchMany.queries', queries, this.dim);
    return this.run(queries, rows, k, options.strategy, 'searchMany');
  }

  /** A copy of stored vector `index`, as given to create (not normalised). */
  vector(index: number): Float32Array {
    this.assertLive();
    if (!Number.isInteger(index) || index < 0 || index >= this.count) {
      throw new InvalidArgumentError('vector.index', index, `must be an integer in [0, ${this.count - 1}]`);
    }
    return this.originals.slice(index * this.dim, (index + 1) * this.dim);
  }

  /** Frees the stored vectors on every backend; later calls throw DisposedError. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.targets.dispose();
    void this.transposed?.then(
      (t) => t.dispose(),
      () => undefined,
    );
  }

  /** Validates, then searches in slices of at most queriesPerOp queries (one scores matrix each). */
  private async run(
    queries: Float32Array,
    rows: number,
    k: number,
    strategy: Strategy | undefined,
    caller: string,
  ): Promise<SearchHit[][]> {
    checkK(`${caller}.k`, k, this.count);
    checkRows(caller === 'search' ? 'search.query' : 'searchMany.queries', queries, rows, this.dim);
    const chosen = strategy ?? this.strategy;
    const hits: SearchHit[][] = [];
    for (let start = 0; start < rows; start += this.queriesPerOp) {
      const end = Math.min(rows, start + this.queriesPerOp);
      const slice = queries.subarray(start * this.dim, end * this.dim);
      for (const row of await this.searchSlice(slice, end - start, k, chosen)) hits.push(row);
    }
    return hits;
  }

  /** One scores op (cosineSimilarity or matmul) and one topK op for `rows` queries; intermediate tensors are freed. */
  private async searchSlice(
    queries: Float32Array,
    rows: number,
    k: number,
    strategy: Strategy | undefined,
  ): Promise<SearchHit[][]> {
    const useMatmul = rows >= this.matmulMinQueries;
    const transposed = useMatmul ? await this.transposedTargets() : undefined;
    const queryTensor = this.engine.tensor(normalisedRows('searchMany.queries', queries, rows, this.dim), [
      rows,
      this.dim,
    ]);
    const made: Array<Tensor | undefined> = [queryTensor];
    try {
      const scores =
        transposed === undefined
          ? await this.engine.cosineSimilarity(queryTensor, this.targets, { strategy, label: 'memory.cosine' })
          : await this.engine.matmul(queryTensor, transposed, { strategy, label: 'memory.matmul' });
      made.push(scores);
      const { values, indices } = await this.engine.topK(scores, k, { strategy, label: 'memory.topK' });
      made.push(values, indices);
      return hitsOf(await values.read(), await indices.read(), rows, k);
    } finally {
      disposeAll(made);
    }
  }

  /** The unit targets as [dim, count], built once (concurrent first callers share it). */
  private transposedTargets(): Promise<Tensor<'f32'>> {
    this.transposed ??= Promise.resolve().then(() => {
      const unit = normalisedRows('VectorOps.vectors', this.originals, this.count, this.dim);
      const out = new Float32Array(unit.length);
      const { count, dim } = this;
      for (let r = 0; r < count; r++) {
        for (let c = 0; c < dim; c++) out[c * count + r] = unit[r * dim + c] ?? 0;
      }
      return this.engine.tensor(out, [dim, count]);
    });
    return this.transposed;
  }

  private assertLive(): void {
    if (this.disposed) throw new DisposedError('VectorOps');
  }
}

/** Rows of SearchHit from topK's [rows, k] values and indices. */
function hitsOf(values: Float32Array, indices: Int32Array, rows: number, k: number): SearchHit[][] {
  const out: SearchHit[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: SearchHit[] = [];
    for (let p = 0; p < k; p++) row.push({ index: indices[r * k + p] ?? -1, score: values[r * k + p] ?? Number.NaN });
    out.push(row);
  }
  return out;
}
