// HnswIndex: approximate k-nearest-neighbour search by cosine similarity over an HNSW graph (graph.ts), with
// save/load (format.ts, README.md; with or without the vectors) and a batch search that can hand large batches to the engine (exact-batch.ts).
import { InvalidArgumentError, sleep, type Engine } from '@tandem/core';
import type { SearchHit } from '../vectors/search-hit.ts';
import { ExactBatch, type BatchMode } from './exact-batch.ts';
import { HnswVectorsMismatchError } from './errors.ts';
import { decodeIndex, encodeGraphOnly, encodeIndex, vectorsCrc32 } from './format.ts';
import { HnswGraph } from './graph.ts';
import { normaliseInto } from './vector-math.ts';

/** Options of HnswIndex.build. */
export interface HnswBuildOptions {
  /** Neighbours per node on upper levels; level 0 keeps 2M (default 16). */
  readonly M?: number;
  /** Candidate list size while building (default 200). */
  readonly efConstruction?: number;
  /** Seed of the level generator: the same vectors, options and seed give the same graph (default 42). */
  readonly seed?: number;
  /** Engine for searchBatch's exact route (brute force on a GPU backend for large batches). */
  readonly engine?: Engine;
  /** Called every 1,000 inserts and at the end with (inserted, total). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Options of HnswIndex.load. */
export interface HnswLoadOptions {
  /** Engine for searchBatch's exact route. */
  readonly engine?: Engine;
  /**
   * The vectors a graph-only file (save({ vectors: false })) was built on: count x dim floats, row-major, as given
   * to build (and insert), normalised here. Required for a graph-only file, refused for a file holding its vectors.
   * HnswVectorsMismatchError when their count, dim or CRC-32 (of the unit vectors) differs from the file's record.
   */
  readonly vectors?: Float32Array;
}

/** Options of save. */
export interface HnswSaveOptions {
  /**
   * true (default): the graph and its unit vectors (format version 1, self-contained). false: the graph only
   * (version 2, about dim x 4 bytes less per node), with a CRC-32 of the unit vectors; load it with `vectors`.
   */
  readonly vectors?: boolean;
}

/** Options of search. */
export interface HnswSearchOptions {
  /** Search list size, >= k (default max(k, 64)); larger is slower and more accurate. */
  readonly ef?: number;
}

/** Options of searchBatch. */
export interface HnswBatchOptions extends HnswSearchOptions {
  /**
   * 'graph': one HNSW search per query. 'exact': brute force through the engine (needs `engine` at build).
   * 'auto' (default): 'exact' when the engine has a usable hardware GPU backend (not SwiftShader) and the batch has >= 256 queries, else 'graph'.
   */
  readonly mode?: BatchMode;
}

const DEFAULT_M = 16;
const DEFAULT_EF_CONSTRUCTION = 200;
const DEFAULT_SEED = 42;
const DEFAULT_EF = 64;
const PROGRESS_EVERY = 1000;
/** Inserts between yields to the event loop during build (keeps a server or progress output responsive). */
const YIELD_EVERY = 5000;

/** An HNSW index over unit-normalised vectors; scores are cosine similarities. */
export class HnswIndex {
  private readonly graph: HnswGraph;
  private readonly exact: ExactBatch;

  private constructor(graph: HnswGraph, engine: Engine | undefined) {
    this.graph = graph;
    this.exact = new ExactBatch(engine);
  }

  /** Number of indexed vectors. */
  get count(): number {
    return this.graph.count;
  }

  /** Floats per vector. */
  get dim(): number {
    return this.graph.dim;
  }

  /** Neighbours per node on upper levels (level 0 keeps 2M). */
  get M(): number {
    return this.graph.m;
  }

  /** Candidate list size used while inserting. */
  get efConstruction(): number {
    return this.graph.efConstruction;
  }

  /** Builds an index of `vectors` (count x dim floats, row-major; normalised copies are stored), row i = index i. */
  static async build(vectors: Float32Array, dim: number, options: HnswBuildOptions = {}): Promise<HnswIndex> {
    checkDim('HnswIndex.build.dim', dim);
    if (!(vectors instanceof Float32Array))
      throw new InvalidArgumentError('HnswIndex.build.vectors', typeof vectors, 'must be a Float32Array');
    if (vectors.length % dim !== 0)
      throw new InvalidArgumentError(
        'HnswIndex.build.vectors.length',
        vectors.length,
        `must be a multiple of dim (${dim})`,
      );
    const m = options.M ?? DEFAULT_M;
    if (!Number.isInteger(m) || m < 2 || m > 4096)
      throw new InvalidArgumentError('HnswIndex.build.M', m, 'must be an integer in 2..4096');
    const efConstruction = options.efConstruction ?? DEFAULT_EF_CONSTRUCTION;
    if (!Number.isInteger(efConstruction) || efConstruction < 1)
      throw new InvalidArgumentError('HnswIndex.build.efConstruction', efConstruction, 'must be an integer >= 1');
    const seed = options.seed ?? DEFAULT_SEED;
    if (!Number.isInteger(seed)) throw new InvalidArgumentError('HnswIndex.build.seed', seed, 'must be an integer');
    checkFinite('HnswIndex.build.vectors', vectors);
    const count = vectors.length / dim;
    const graph = await HnswGraph.create(dim, { m, efConstruction }, count, seed);
    for (let i = 0; i < count; i++) normaliseInto(vectors, i * dim, graph.vectors, i * dim, dim);
    for (let i = 0; i < count; i++) {
      graph.insertPrepared();
      if ((i + 1) % PROGRESS_EVERY === 0 || i + 1 === count) options.onProgress?.(i + 1, count);
      if ((i + 1) % YIELD_EVERY === 0) await yieldToEventLoop();
    }
    return new HnswIndex(graph, options.engine);
  }

  /**
   * An index from save()'s bytes; throws HnswFormatError naming what is wrong. `engine` enables the exact route.
   * A graph-only file needs `vectors` (the ones it was built on; HnswVectorsMismatchError when they are not).
   */
  static async load(bytes: Uint8Array, options: HnswLoadOptions = {}): Promise<HnswIndex> {
    if (!(bytes instanceof Uint8Array))
      throw new InvalidArgumentError('HnswIndex.load.bytes', typeof bytes, 'must be a Uint8Array');
    const decoded = decodeIndex(bytes);
    const given = options.vectors;
    if (decoded.vectors !== undefined) {
      if (given !== undefined)
        throw new InvalidArgumentError(
          'HnswIndex.load.vectors',
          `${given.length} floats`,
          'must be left out: this index file holds its own vectors',
        );
      return new HnswIndex(await HnswGraph.fromArrays(decoded), options.engine);
    }
    const { count, dim } = decoded;
    if (given === undefined) {
      throw new InvalidArgumentError(
        'HnswIndex.load.vectors',
        undefined,
        `is required: this index was saved without its vectors (graph only); pass the ${count} x ${dim} vectors it was built on`,
      );
    }
    if (!(given instanceof Float32Array))
      throw new InvalidArgumentError('HnswIndex.load.vectors', typeof given, 'must be a Float32Array');
    if (given.length !== count * dim) {
      const rows = given.length / dim;
      throw new HnswVectorsMismatchError(
        `the index has ${count} vectors of dim ${dim} (${count * dim} floats); ${given.length} floats were given${Number.isInteger(rows) ? ` (${rows} vectors)` : ''}`,
      );
    }
    checkFinite('HnswIndex.load.vectors', given);
    const unit = new Float32Array(count * dim);
    for (let i = 0; i < count; i++) normaliseInto(given, i * dim, unit, i * dim, dim);
    const crc = vectorsCrc32(unit);
    if (crc !== decoded.vectorsCrc) {
      throw new HnswVectorsMismatchError(
        `CRC-32 of their ${count} unit vectors is ${hex(crc)}, the index records ${hex(decoded.vectorsCrc)} (same count and dim, different values or order)`,
      );
    }
    return new HnswIndex(await HnswGraph.fromArrays({ ...decoded, vectors: unit }), options.engine);
  }

  /** Adds one vector (dim floats); returns its index (= the count before the call). */
  insert(vector: Float32Array): number {
    this.checkVector('insert.vector', vector);
    const graph = this.graph;
    graph.reserve(graph.count + 1);
    normaliseInto(vector, 0, graph.vectors, graph.count * graph.dim, graph.dim);
    this.exact.invalidate();
    return graph.insertPrepared();
  }

  /** The k indexed vectors most similar to `query`, best first (approximate; raise ef for more accuracy). */
  search(query: Float32Array, k: number, options: HnswSearchOptions = {}): SearchHit[] {
    this.checkVector('search.query', query);
    const ef = this.checkSearch('search', k, options.ef);
    return this.graph.search(query, 0, k, ef);
  }

  /** search() for each of the q queries (q x dim floats, row-major); see HnswBatchOptions.mode for the route. */
  async searchBatch(queries: Float32Array, k: number, options: HnswBatchOptions = {}): Promise<SearchHit[][]> {
    if (!(queries instanceof Float32Array))
      throw new InvalidArgumentError('searchBatch.queries', typeof queries, 'must be a Float32Array');
    if (queries.length % this.dim !== 0)
      throw new InvalidArgumentError(
        'searchBatch.queries.length',
        queries.length,
        `must be a multiple of dim (${this.dim})`,
      );
    checkFinite('searchBatch.queries', queries);
    const ef = this.checkSearch('searchBatch', k, options.ef);
    const rows = queries.length / this.dim;
    const mode = options.mode ?? 'auto';
    if (this.exact.chooses(mode, rows)) return this.exact.search(this.graph.vectors, this.count, this.dim, queries, k);
    const out: SearchHit[][] = [];
    for (let r = 0; r < rows; r++) out.push(this.graph.search(queries, r * this.dim, k, ef));
    return out;
  }

  /** The index in the documented binary format (README.md in this folder); `{ vectors: false }` for the graph only. */
  save(options: HnswSaveOptions = {}): Uint8Array {
    const arrays = this.graph.toArrays();
    return options.vectors === false ? encodeGraphOnly(arrays) : encodeIndex(arrays);
  }

  /** A copy of stored vector `index`, normalised (the index keeps only unit vectors). */
  vector(index: number): Float32Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.count)
      throw new InvalidArgumentError('vector.index', index, `must be an integer in [0, ${this.count - 1}]`);
    return this.graph.vectors.slice(index * this.dim, (index + 1) * this.dim);
  }

  /** Frees the engine tensors of the exact route (the graph itself is plain memory). */
  dispose(): void {
    this.exact.invalidate();
  }

  private checkVector(argument: string, vector: Float32Array): void {
    if (!(vector instanceof Float32Array) || vector.length !== this.dim) {
      throw new InvalidArgumentError(
        `${argument}.length`,
        vector instanceof Float32Array ? vector.length : typeof vector,
        `must be a Float32Array of the dimension (${this.dim})`,
      );
    }
    checkFinite(argument, vector);
  }

  /** Validates k and ef; returns the ef to use. */
  private checkSearch(caller: string, k: number, ef: number | undefined): number {
    if (!Number.isInteger(k) || k < 1) throw new InvalidArgumentError(`${caller}.k`, k, 'must be an integer >= 1');
    const chosen = ef ?? Math.max(k, DEFAULT_EF);
    if (!Number.isInteger(chosen) || chosen < k)
      throw new InvalidArgumentError(`${caller}.ef`, chosen, `must be an integer >= k (${k})`);
    return chosen;
  }
}

function checkDim(argument: string, dim: number): void {
  if (!Number.isInteger(dim) || dim < 1) throw new InvalidArgumentError(argument, dim, 'must be an integer >= 1');
}

function checkFinite(argument: string, values: Float32Array): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new InvalidArgumentError(`${argument}[${i}]`, values[i], 'must be finite');
  }
}

function hex(crc: number): string {
  return `0x${crc.toString(16).padStart(8, '0')}`;
}

function yieldToEventLoop(): Promise<void> {
  return sleep(0);
}
