// The HNSW graph (Malkov & Yashunin) over unit vectors, distance = 1 - dot. Its arrays live in the linear memory
// of its own instance of the wasm kernels (graph-kernels.ts), laid out by graph-layout.ts:
//   vectors      capacity x dim f32, normalised
//   levels       u8 per node
//   links0       capacity x (maxM0 + 1) i32: [count, neighbour...] at level 0
//   upperLinks   for a node of level L >= 1, L blocks of (M + 1) i32 starting at upperBase[node]
// Search and insertion run in wasm-kernels/hnsw.ts (SIMD distances, heaps and neighbour selection in linear
// memory, one call per query or insert); this side draws levels, makes room, and saves and loads the arrays.
// The typed-array views below are replaced whenever the memory grows (growing detaches the old buffer).
import type { LoadedKernels } from '@tandem/wasm';
import { HnswCapacityError } from './errors.ts';
import { startGraphKernels } from './graph-kernels.ts';
import {
  HEADER_BYTES,
  POINTER_SLOTS,
  SLOT,
  keptRegions,
  layoutGraph,
  type GraphLayout,
  type GraphShape,
} from './graph-layout.ts';
import type { SearchHit } from '../vectors/search-hit.ts';
import { LevelGenerator } from './level-generator.ts';
import { normaliseInto } from './vector-math.ts';

/** Bytes per wasm page. */
const PAGE_BYTES = 65536;

/** Build parameters. */
export interface GraphParams {
  /** Neighbours per node on levels >= 1 (level 0 keeps 2M). */
  readonly m: number;
  /** Candidate list size while inserting. */
  readonly efConstruction: number;
}

/** The arrays that make up a graph (what save/load move). */
export interface GraphArrays {
  /** Vector length. */
  readonly dim: number;
  /** Nodes. */
  readonly count: number;
  /** M. */
  readonly m: number;
  /** Max neighbours on level 0. */
  readonly maxM0: number;
  /** efConstruction. */
  readonly efConstruction: number;
  /** Entry node, -1 when empty. */
  readonly entryPoint: number;
  /** Level of the entry node, -1 when empty. */
  readonly maxLevel: number;
  /** Level generator state. */
  readonly levelState: number;
  /** count levels. */
  readonly levels: Uint8Array;
  /** count x (maxM0 + 1). */
  readonly links0: Int32Array;
  /** Upper-level blocks in node order, sum(levels) x (M + 1). */
  readonly upperLinks: Int32Array;
  /** count x dim unit vectors. */
  readonly vectors: Float32Array;
}

/** An HNSW graph: insert and k-nearest search. */
export class HnswGraph {
  /** Vector length. */
  readonly dim: number;
  /** Neighbours per node on levels >= 1. */
  readonly m: number;
  /** Neighbours per node on level 0. */
  readonly maxM0: number;
  /** Candidate list size while inserting. */
  readonly efConstruction: number;
  /** Nodes in the graph. */
  count = 0;
  /** Unit vectors, row-major (capacity rows); a view into the graph's memory, replaced when it grows. */
  vectors: Float32Array = new Float32Array(0);
  private readonly shape: GraphShape;
  private readonly runtime: LoadedKernels;
  private layout: GraphLayout;
  private header: Int32Array = new Int32Array(0);
  private levels: Uint8Array = new Uint8Array(0);
  private links0: Int32Array = new Int32Array(0);
  private upperBase: Int32Array = new Int32Array(0);
  private upperLinks: Int32Array = new Int32Array(0);
  private query: Float32Array = new Float32Array(0);
  private outIds: Int32Array = new Int32Array(0);
  private outDist: Float32Array = new Float32Array(0);
  private upperUsed = 0;
  private readonly levelGenerator: LevelGenerator;

  private constructor(
    runtime: LoadedKernels,
    dim: number,
    params: GraphParams,
    capacity: number,
    upperInts: number,
    seed: number,
  ) {
    this.dim = dim;
    this.m = params.m;
    this.maxM0 = 2 * params.m;
    this.efConstruction = params.efConstruction;
    this.shape = { dim, m: this.m, maxM0: this.maxM0, efConstruction: this.efConstruction };
    this.runtime = runtime;
    this.levelGenerator = new LevelGenerator(params.m, seed);
    const headerBytes = runtime.kernels.hnsw_header_bytes();
    if (headerBytes !== HEADER_BYTES)
      throw new Error(
        `the wasm HNSW header is ${headerBytes} bytes; graph-layout.ts expects ${HEADER_BYTES} (rebuild the kernels)`,
      );
    this.layout = layoutGraph(runtime.kernels.heap_base(), this.shape, Math.max(1, capacity), Math.max(64, upperInts));
    this.ensureMemory(this.layout.end, this.layout.capacity);
    this.refreshViews();
    this.header[SLOT.entry / 4] = -1;
    this.header[SLOT.maxLevel / 4] = -1;
    this.writeHeader();
  }

  /** An empty graph with room for `capacity` nodes; `seed` starts the level generator. */
  static async create(dim: number, params: GraphParams, capacity: number, seed: number): Promise<HnswGraph> {
    const upperInts = Math.ceil(capacity / params.m) * 2 * (params.m + 1);
    return new HnswGraph(await startGraphKernels(), dim, params, capacity, upperInts, seed);
  }

  /** A graph from saved arrays (already validated). */
  static async fromArrays(a: GraphArrays): Promise<HnswGraph> {
    const graph = new HnswGraph(
      await startGraphKernels(),
      a.dim,
      { m: a.m, efConstruction: a.efConstruction },
      a.count,
      a.upperLinks.length,
      0,
    );
    graph.levelGenerator.state = a.levelState >>> 0;
    graph.count = a.count;
    graph.vectors.set(a.vectors);
    graph.levels.set(a.levels);
    graph.links0.set(a.links0);
    graph.upperLinks.set(a.upperLinks);
    let used = 0;
    for (let node = 0; node < a.count; node++) {
      const level = a.levels[node] ?? 0;
      if (level > 0) {
        graph.upperBase[node] = used;
        used += level * (a.m + 1);
      }
    }
    graph.upperUsed = used;
    graph.header[SLOT.entry / 4] = a.entryPoint;
    graph.header[SLOT.maxLevel / 4] = a.maxLevel;
    return graph;
  }

  /** The arrays to save (upper blocks compacted into node order). */
  toArrays(): GraphArrays {
    const blocks = this.m + 1;
    let total = 0;
    for (let node = 0; node < this.count; node++) total += (this.levels[node] ?? 0) * blocks;
    const upper = new Int32Array(total);
    let at = 0;
    for (let node = 0; node < this.count; node++) {
      const len = (this.levels[node] ?? 0) * blocks;
      if (len === 0) continue;
      const base = this.upperBase[node] ?? 0;
      upper.set(this.upperLinks.subarray(base, base + len), at);
      at += len;
    }
    return {
      dim: this.dim,
      count: this.count,
      m: this.m,
      maxM0: this.maxM0,
      efConstruction: this.efConstruction,
      entryPoint: this.header[SLOT.entry / 4] ?? -1,
      maxLevel: this.header[SLOT.maxLevel / 4] ?? -1,
      levelState: this.levelGenerator.state >>> 0,
      levels: this.levels.slice(0, this.count),
      links0: this.links0.slice(0, this.count * (this.maxM0 + 1)),
      upperLinks: upper,
      vectors: this.vectors.slice(0, this.count * this.dim),
    };
  }

  /** Adds a node whose unit vector is already at row `count` of `vectors` (call reserve first). */
  insertPrepared(): number {
    const node = this.count;
    const level = this.levelGenerator.next();
    if (level > 0) {
      const need = level * (this.m + 1);
      this.ensureUpper(this.upperUsed + need);
      this.upperBase[node] = this.upperUsed;
      this.upperLinks.fill(0, this.upperUsed, this.upperUsed + need);
      this.upperUsed += need;
    }
    this.runtime.kernels.hnsw_insert(this.layout.header, node, level);
    this.count++;
    return node;
  }

  /** Makes room for `total` nodes (moving the per-node arrays up in memory when they must grow). */
  reserve(total: number): void {
    if (total <= this.layout.capacity) return;
    this.relayout(Math.max(total, Math.ceil(this.layout.capacity * 1.5)), this.layout.upperInts);
  }

  /**
   * The k nearest nodes to q[qOffset ..+dim] (normalised here, into the kernels' query slot) with search list
   * `ef`, nearest first; score = cosine similarity.
   */
  search(q: Float32Array, qOffset: number, k: number, ef: number): SearchHit[] {
    if (this.count === 0) return [];
    normaliseInto(q, qOffset, this.query, 0, this.dim);
    const layout = this.layout;
    const n = this.runtime.kernels.hnsw_search(layout.header, layout.query, k, ef, layout.outIds, layout.outDist);
    const hits: SearchHit[] = [];
    for (let i = 0; i < n; i++) hits.push({ index: this.outIds[i] ?? -1, score: 1 - (this.outDist[i] ?? 1) });
    return hits;
  }

  /** Grows the memory to at least `bytes` (for `capacity` nodes); HnswCapacityError past the most the host grants. */
  private ensureMemory(bytes: number, capacity: number): void {
    const memory = this.runtime.memory;
    const have = memory.buffer.byteLength;
    if (bytes <= have) return;
    const limit = this.runtime.maxBytes;
    const fail = (): HnswCapacityError =>
      new HnswCapacityError(
        `an HNSW graph of ${capacity} nodes x ${this.dim} dims needs ${bytes} bytes of wasm memory; this host grants at most ${limit} (wasm32: 4 GiB)`,
        bytes,
        limit,
      );
    if (bytes > limit) throw fail();
    try {
      memory.grow(Math.ceil((bytes - have) / PAGE_BYTES));
    } catch (error) {
      if (error instanceof RangeError) throw fail();
      throw error;
    }
  }

  /** Moves to a layout of `capacity` nodes and `upperInts` upper links, keeping the contents. */
  private relayout(capacity: number, upperInts: number): void {
    const old = this.layout;
    const next = layoutGraph(old.header, this.shape, capacity, upperInts);
    this.ensureMemory(next.end, capacity);
    this.layout = next;
    const bytes = new Uint8Array(this.runtime.memory.buffer);
    // Every region starts at or above where it was, so moving the last one first never overwrites one not yet moved.
    const upperUsedBytes = this.upperUsed * 4;
    bytes.copyWithin(next.upperLinks, old.upperLinks, old.upperLinks + upperUsedBytes);
    bytes.fill(0, next.upperLinks + upperUsedBytes, next.end);
    for (const region of [...keptRegions(this.shape)].reverse()) {
      const used = this.count * region.bytesPerNode;
      bytes.copyWithin(next[region.key], old[region.key], old[region.key] + used);
      bytes.fill(0, next[region.key] + used, next[region.key] + capacity * region.bytesPerNode);
    }
    bytes.fill(0, next.visited, next.visited + capacity * 4);
    this.refreshViews();
    this.header[SLOT.generation / 4] = 0;
    this.writeHeader();
  }

  /** Makes room for `total` i32s of upper links (the last region: only the memory grows). */
  private ensureUpper(total: number): void {
    if (total <= this.layout.upperInts) return;
    const upperInts = Math.max(total, this.layout.upperInts * 2);
    const next = layoutGraph(this.layout.header, this.shape, this.layout.capacity, upperInts);
    this.ensureMemory(next.end, next.capacity);
    this.layout = next;
    this.refreshViews();
  }

  /** Writes the sizes and region offsets the kernels read (entry, max level and generation are kept). */
  private writeHeader(): void {
    const h = this.header;
    h[SLOT.dim / 4] = this.dim;
    h[SLOT.m / 4] = this.m;
    h[SLOT.maxM0 / 4] = this.maxM0;
    h[SLOT.efConstruction / 4] = this.efConstruction;
    h[SLOT.capacity / 4] = this.layout.capacity;
    for (const [key, slot] of POINTER_SLOTS) h[slot / 4] = this.layout[key];
  }

  /** New views over the current memory buffer. */
  private refreshViews(): void {
    const buffer = this.runtime.memory.buffer;
    const l = this.layout;
    const capacity = l.capacity;
    this.header = new Int32Array(buffer, l.header, HEADER_BYTES / 4);
    this.vectors = new Float32Array(buffer, l.vectors, capacity * this.dim);
    this.levels = new Uint8Array(buffer, l.levels, capacity);
    this.links0 = new Int32Array(buffer, l.links0, capacity * (this.maxM0 + 1));
    this.upperBase = new Int32Array(buffer, l.upperBase, capacity);
    this.upperLinks = new Int32Array(buffer, l.upperLinks, l.upperInts);
    this.query = new Float32Array(buffer, l.query, this.dim);
    this.outIds = new Int32Array(buffer, l.outIds, capacity + 1);
    this.outDist = new Float32Array(buffer, l.outDist, capacity + 1);
  }
}
