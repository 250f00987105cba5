// The HNSW graph (Malkov & Yashunin) over unit vectors, distance = 1 - dot. All state is in typed arrays:
//   vectors      capacity x dim f32, normalised
//   levels       u8 per node
//   links0       capacity x (maxM0 + 1) i32: [count, neighbour...] at level 0
//   upperLinks   for a node of level L >= 1, L blocks of (M + 1) i32 starting at upperBase[node]
// The search uses two MinHeaps (results with negated keys), a visited-marks array with a generation counter,
// and one unrolled dot product; nothing allocates per visited node.
import { MinHeap } from './heap.ts';
import { LevelGenerator } from './level-generator.ts';
import { dot } from './vector-math.ts';

/** f32 values per 64-byte cache line. */
const FLOATS_PER_LINE = 16;

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
  /** Unit vectors, row-major (capacity rows). */
  vectors: Float32Array;
  private capacity: number;
  private levels: Uint8Array;
  private links0: Int32Array;
  private upperBase: Int32Array;
  private upperLinks: Int32Array;
  private upperUsed = 0;
  private entryPoint = -1;
  private maxLevel = -1;
  private readonly levelGenerator: LevelGenerator;
  private visited: Uint32Array;
  private generation = 0;
  private readonly candidates = new MinHeap(256);
  /** Search results, keys negated (farthest on top). */
  private readonly results = new MinHeap(256);
  /** Scratch for neighbour selection. */
  private selectIds = new Int32Array(64);
  private selectDist = new Float64Array(64);
  private readonly chosen: Int32Array;
  /** Unvisited neighbours of the node being expanded. */
  private readonly pending: Int32Array;
  /** Sum of the prefetch touches (kept so the loads are not optimised away). */
  touchSink = 0;

  /** An empty graph with room for `capacity` nodes; `seed` starts the level generator. */
  constructor(dim: number, params: GraphParams, capacity: number, seed: number) {
    this.dim = dim;
    this.m = params.m;
    this.maxM0 = 2 * params.m;
    this.efConstruction = params.efConstruction;
    this.capacity = Math.max(1, capacity);
    this.vectors = new Float32Array(this.capacity * dim);
    this.levels = new Uint8Array(this.capacity);
    this.links0 = new Int32Array(this.capacity * (this.maxM0 + 1));
    this.upperBase = new Int32Array(this.capacity).fill(-1);
    this.upperLinks = new Int32Array(Math.max(64, Math.ceil(this.capacity / params.m) * 2 * (params.m + 1)));
    this.visited = new Uint32Array(this.capacity);
    this.levelGenerator = new LevelGenerator(params.m, seed);
    this.chosen = new Int32Array(this.maxM0 + 1);
    this.pending = new Int32Array(this.maxM0 + 1);
  }

  /** A graph from saved arrays (already validated). */
  static fromArrays(a: GraphArrays): HnswGraph {
    const graph = new HnswGraph(a.dim, { m: a.m, efConstruction: a.efConstruction }, a.count, 0);
    graph.levelGenerator.state = a.levelState >>> 0;
    graph.count = a.count;
    graph.vectors.set(a.vectors);
    graph.levels.set(a.levels);
    graph.links0.set(a.links0);
    graph.entryPoint = a.entryPoint;
    graph.maxLevel = a.maxLevel;
    graph.ensureUpper(a.upperLinks.length);
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
      entryPoint: this.entryPoint,
      maxLevel: this.maxLevel,
      levelState: this.levelGenerator.state >>> 0,
      levels: this.levels.slice(0, this.count),
      links0: this.links0.slice(0, this.count * (this.maxM0 + 1)),
      upperLinks: upper,
      vectors: this.vectors.slice(0, this.count * this.dim),
    };
  }

  /** Adds a node whose unit vector is already at row `count` of `vectors` (call reserve first). */
  insertPrepared(): number {
    const node = this.count++;
    const level = this.levelGenerator.next();
    this.levels[node] = level;
    if (level > 0) {
      const need = level * (this.m + 1);
      this.ensureUpper(this.upperUsed + need);
      this.upperBase[node] = this.upperUsed;
      this.upperLinks.fill(0, this.upperUsed, this.upperUsed + need);
      this.upperUsed += need;
    }
    if (this.entryPoint < 0) {
      this.entryPoint = node;
      this.maxLevel = level;
      return node;
    }
    const q = this.vectors;
    const qOffset = node * this.dim;
    let current = this.entryPoint;
    let currentDist = 1 - dot(q, qOffset, this.vectors, current * this.dim, this.dim);
    for (let lc = this.maxLevel; lc > level; lc--) {
      current = this.greedy(q, qOffset, current, currentDist, lc);
      currentDist = this.lastGreedyDist;
    }
    for (let lc = Math.min(level, this.maxLevel); lc >= 0; lc--) {
      this.searchLayer(q, qOffset, current, currentDist, this.efConstruction, lc);
      const maxLinks = lc === 0 ? this.maxM0 : this.m;
      const closest = this.connect(node, lc, this.m, maxLinks);
      current = closest;
      currentDist = 1 - dot(q, qOffset, this.vectors, closest * this.dim, this.dim);
    }
    if (level > this.maxLevel) {
      this.entryPoint = node;
      this.maxLevel = level;
    }
    return node;
  }

  /** Makes room for `total` nodes (vectors, levels, links, marks). */
  reserve(total: number): void {
    if (total <= this.capacity) return;
    const capacity = Math.max(total, Math.ceil(this.capacity * 1.5));
    this.vectors = grownF32(this.vectors, capacity * this.dim);
    this.levels = grownU8(this.levels, capacity);
    this.links0 = grownI32(this.links0, capacity * (this.maxM0 + 1));
    const base = new Int32Array(capacity).fill(-1);
    base.set(this.upperBase);
    this.upperBase = base;
    this.visited = new Uint32Array(capacity);
    this.generation = 0;
    this.capacity = capacity;
  }

  /**
   * The k nearest nodes to the unit vector q[qOffset ..] with search list `ef`: writes ids and distances
   * (1 - cosine), nearest first, into outIds / outDist; returns how many were written.
   */
  search(q: Float32Array, qOffset: number, k: number, ef: number, outIds: Int32Array, outDist: Float64Array): number {
    if (this.entryPoint < 0) return 0;
    let current = this.entryPoint;
    let currentDist = 1 - dot(q, qOffset, this.vectors, current * this.dim, this.dim);
    for (let lc = this.maxLevel; lc > 0; lc--) {
      current = this.greedy(q, qOffset, current, currentDist, lc);
      currentDist = this.lastGreedyDist;
    }
    this.searchLayer(q, qOffset, current, currentDist, Math.max(ef, k), 0);
    const results = this.results;
    while (results.size > k) results.pop();
    const n = results.size;
    for (let i = n - 1; i >= 0; i--) {
      outIds[i] = results.topId();
      outDist[i] = -results.topKey();
      results.pop();
    }
    return n;
  }

  private lastGreedyDist = 0;

  /** Greedy walk on level `lc` from `start`; returns the local minimum (its distance in lastGreedyDist). */
  private greedy(q: Float32Array, qOffset: number, start: number, startDist: number, lc: number): number {
    const dim = this.dim;
    const vectors = this.vectors;
    const links = this.upperLinks;
    let current = start;
    let currentDist = startDist;
    let changed = true;
    while (changed) {
      changed = false;
      const at = (this.upperBase[current] ?? 0) + (lc - 1) * (this.m + 1);
      const n = links[at] ?? 0;
      for (let j = 1; j <= n; j++) {
        const candidate = links[at + j] ?? 0;
        const d = 1 - dot(q, qOffset, vectors, candidate * dim, dim);
        if (d < currentDist) {
          currentDist = d;
          current = candidate;
          changed = true;
        }
      }
    }
    this.lastGreedyDist = currentDist;
    return current;
  }

  /** Best-first search of level `lc` from `entry`; leaves the `ef` nearest in `results` (negated keys). */
  private searchLayer(q: Float32Array, qOffset: number, entry: number, entryDist: number, ef: number, lc: number): void {
    const dim = this.dim;
    const vectors = this.vectors;
    const candidates = this.candidates;
    const results = this.results;
    const visited = this.visited;
    const gen = this.nextGeneration();
    const links = lc === 0 ? this.links0 : this.upperLinks;
    const stride = this.maxM0 + 1;
    const upperStride = this.m + 1;
    const pending = this.pending;
    candidates.clear();
    results.clear();
    visited[entry] = gen;
    candidates.push(entryDist, entry);
    results.push(-entryDist, entry);
    let bound = entryDist;
    while (candidates.size > 0) {
      const d = candidates.topKey();
      if (d > bound && results.size >= ef) break;
      const c = candidates.topId();
      candidates.pop();
      const at = lc === 0 ? c * stride : (this.upperBase[c] ?? 0) + (lc - 1) * upperStride;
      const n = links[at] ?? 0;
      // Gather the unvisited neighbours and touch every cache line of their vectors first: the loads are
      // independent, so the memory system fetches the rows in parallel instead of one dot product at a time.
      let fresh = 0;
      let touch = 0;
      for (let j = 1; j <= n; j++) {
        const neighbour = links[at + j] ?? 0;
        if (visited[neighbour] === gen) continue;
        visited[neighbour] = gen;
        pending[fresh++] = neighbour;
        const row = neighbour * dim;
        for (let line = 0; line < dim; line += FLOATS_PER_LINE) touch += vectors[row + line] ?? 0;
      }
      this.touchSink += touch;
      for (let j = 0; j < fresh; j++) {
        const neighbour = pending[j] ?? 0;
        const dn = 1 - dot(q, qOffset, vectors, neighbour * dim, dim);
        if (results.size < ef || dn < bound) {
          candidates.push(dn, neighbour);
          results.push(-dn, neighbour);
          if (results.size > ef) results.pop();
          bound = -results.topKey();
        }
      }
    }
  }

  private nextGeneration(): number {
    this.generation = (this.generation + 1) >>> 0;
    if (this.generation === 0) {
      this.visited.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }

  /**
   * Links `node` on level `lc` to up to `m` of the search results (heuristic selection) and each of them back to
   * it, shrinking lists that overflow `maxLinks`. Returns the closest result (next level's entry).
   */
  private connect(node: number, lc: number, m: number, maxLinks: number): number {
    const results = this.results;
    const n = results.size;
    this.ensureSelect(n);
    // Drain results nearest-first into the selection scratch.
    for (let i = n - 1; i >= 0; i--) {
      this.selectIds[i] = results.topId();
      this.selectDist[i] = -results.topKey();
      results.pop();
    }
    const closest = this.selectIds[0] ?? node;
    const count = this.selectHeuristic(n, m);
    const chosen = this.chosen;
    for (let i = 0; i < count; i++) chosen[i] = this.selectIds[i] ?? 0;
    const links = this.linkArray(lc);
    const at = this.linkOffset(node, lc);
    links[at] = count;
    for (let i = 0; i < count; i++) links[at + 1 + i] = chosen[i] ?? 0;
    for (let i = 0; i < count; i++) this.addBackLink(chosen[i] ?? 0, node, lc, maxLinks);
    return closest;
  }

  /**
   * Keeps, in place at the front of selectIds/selectDist (sorted nearest-first, n entries), the candidates that
   * are closer to the query than to any already kept one, up to m of them; returns how many were kept.
   */
  private selectHeuristic(n: number, m: number): number {
    if (n <= m) return n;
    const ids = this.selectIds;
    const dist = this.selectDist;
    const dim = this.dim;
    const vectors = this.vectors;
    let kept = 0;
    for (let i = 0; i < n && kept < m; i++) {
      const e = ids[i] ?? 0;
      const de = dist[i] ?? 0;
      let good = true;
      for (let r = 0; r < kept; r++) {
        const other = ids[r] ?? 0;
        if (1 - dot(vectors, e * dim, vectors, other * dim, dim) < de) {
          good = false;
          break;
        }
      }
      if (good) {
        ids[kept] = e;
        dist[kept] = de;
        kept++;
      }
    }
    return kept;
  }

  /** Adds `node` to `target`'s list on level lc; a full list is re-selected by the heuristic from list + node. */
  private addBackLink(target: number, node: number, lc: number, maxLinks: number): void {
    const links = this.linkArray(lc);
    const at = this.linkOffset(target, lc);
    const n = links[at] ?? 0;
    for (let j = 1; j <= n; j++) if (links[at + j] === node) return;
    if (n < maxLinks) {
      links[at + 1 + n] = node;
      links[at] = n + 1;
      return;
    }
    const dim = this.dim;
    const vectors = this.vectors;
    const tOffset = target * dim;
    this.ensureSelect(n + 1);
    const ids = this.selectIds;
    const dist = this.selectDist;
    ids[0] = node;
    dist[0] = 1 - dot(vectors, tOffset, vectors, node * dim, dim);
    for (let j = 1; j <= n; j++) {
      const other = links[at + j] ?? 0;
      ids[j] = other;
      dist[j] = 1 - dot(vectors, tOffset, vectors, other * dim, dim);
    }
    sortByDistance(ids, dist, n + 1);
    const kept = this.selectHeuristic(n + 1, maxLinks);
    links[at] = kept;
    for (let j = 0; j < kept; j++) links[at + 1 + j] = ids[j] ?? 0;
  }

  /** The array holding level lc's neighbour lists. */
  private linkArray(lc: number): Int32Array {
    return lc === 0 ? this.links0 : this.upperLinks;
  }

  /** Where node's neighbour list on level lc starts in linkArray(lc) (that slot holds the count). */
  private linkOffset(node: number, lc: number): number {
    return lc === 0 ? node * (this.maxM0 + 1) : (this.upperBase[node] ?? 0) + (lc - 1) * (this.m + 1);
  }

  private ensureSelect(n: number): void {
    if (this.selectIds.length >= n) return;
    this.selectIds = new Int32Array(n * 2);
    this.selectDist = new Float64Array(n * 2);
  }

  private ensureUpper(total: number): void {
    if (total <= this.upperLinks.length) return;
    this.upperLinks = grownI32(this.upperLinks, Math.max(total, this.upperLinks.length * 2));
  }
}

/** Insertion sort of the first n (id, dist) pairs by distance (n <= 2M + 1, so this is cheap). */
function sortByDistance(ids: Int32Array, dist: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const d = dist[i] ?? 0;
    const id = ids[i] ?? 0;
    let j = i - 1;
    while (j >= 0 && (dist[j] ?? 0) > d) {
      dist[j + 1] = dist[j] ?? 0;
      ids[j + 1] = ids[j] ?? 0;
      j--;
    }
    dist[j + 1] = d;
    ids[j + 1] = id;
  }
}

function grownF32(a: Float32Array, length: number): Float32Array {
  const b = new Float32Array(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
}

function grownI32(a: Int32Array, length: number): Int32Array {
  const b = new Int32Array(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
}

function grownU8(a: Uint8Array, length: number): Uint8Array {
  const b = new Uint8Array(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
}
