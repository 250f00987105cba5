// HNSW graph search and insertion (Malkov & Yashunin) over unit vectors, distance = 1 - dot, for @tandem/memory's
// HnswGraph (packages/memory/src/hnsw/graph.ts). That side owns the layout: it places every array in this
// module's memory and records where in a header of i32 slots at `g` (the slot offsets below; graph-layout.ts holds
// the same table). The distances, heaps and neighbour selection run here, in SIMD, without a call per vector.
//
// Arrays (all offsets in bytes, rows n floats apart):
//   vectors      capacity x dim f32 unit rows
//   levels       u8 per node
//   links0       capacity x (maxM0 + 1) i32: [count, neighbour...] at level 0
//   upperBase    i32 per node: where its upper blocks start in upperLinks (in i32s), for nodes of level >= 1
//   upperLinks   a node of level L has L blocks of (M + 1) i32, level l at upperBase + (l - 1) * (M + 1)
//   visited      u32 per node: the generation that last visited it
//   cand/res     two binary min-heaps (f32 keys, i32 ids), capacity + 1 entries; results hold negated keys
//   pending      maxM0 + 1 i32: the unvisited neighbours of the node being expanded
//   selIds/Dist  selection scratch, max(efConstruction, maxM0 + 1) + 1 entries; chosen: maxM0 + 1 i32
import { hsum } from './simd_math';

/** Header slots (byte offsets from g). */
const DIM: usize = 0;
const M: usize = 4;
const MAX_M0: usize = 8;
const EF_CONSTRUCTION: usize = 12;
const CAPACITY: usize = 16;
const ENTRY: usize = 20;
const MAX_LEVEL: usize = 24;
const GENERATION: usize = 28;
const VECTORS: usize = 32;
const LEVELS: usize = 36;
const LINKS0: usize = 40;
const UPPER_BASE: usize = 44;
const UPPER_LINKS: usize = 48;
const VISITED: usize = 52;
const CAND_KEYS: usize = 56;
const CAND_IDS: usize = 60;
const RES_KEYS: usize = 64;
const RES_IDS: usize = 68;
const PENDING: usize = 72;
const SEL_IDS: usize = 76;
const SEL_DIST: usize = 80;
const CHOSEN: usize = 84;
const RES_SIZE: usize = 88;
const LAST_DIST: usize = 92;
const TOUCH_SINK: usize = 96;

/** Bytes of the header. */
export function hnsw_header_bytes(): usize {
  return 128;
}

@inline function slot(g: usize, at: usize): i32 {
  return load<i32>(g + at);
}

@inline function ptr(g: usize, at: usize): usize {
  return <usize>load<u32>(g + at);
}

@inline function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

@inline function f32At(base: usize, i: i32): f32 {
  return load<f32>(base + (<usize>i << 2));
}

/** a[0..dim) . b[0..dim): four f32x4 accumulators, then a scalar tail. */
export function hnsw_dot(a: usize, b: usize, dim: i32): f32 {
  let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
  const bytes = <usize>dim << 2;
  let i: usize = 0;
  for (; i + 64 <= bytes; i += 64) {
    s0 = f32x4.add(s0, f32x4.mul(v128.load(a + i), v128.load(b + i)));
    s1 = f32x4.add(s1, f32x4.mul(v128.load(a + i, 16), v128.load(b + i, 16)));
    s2 = f32x4.add(s2, f32x4.mul(v128.load(a + i, 32), v128.load(b + i, 32)));
    s3 = f32x4.add(s3, f32x4.mul(v128.load(a + i, 48), v128.load(b + i, 48)));
  }
  for (; i + 16 <= bytes; i += 16) s0 = f32x4.add(s0, f32x4.mul(v128.load(a + i), v128.load(b + i)));
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < bytes; i += 4) s += load<f32>(a + i) * load<f32>(b + i);
  return s;
}

@inline function distance(g: usize, q: usize, node: i32): f32 {
  const dim = slot(g, DIM);
  return 1 - hnsw_dot(q, ptr(g, VECTORS) + <usize>node * (<usize>dim << 2), dim);
}

/** Adds (key, id) to the min-heap holding `size` entries. */
@inline function heapPush(keys: usize, ids: usize, size: i32, key: f32, id: i32): void {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const pk = f32At(keys, parent);
    if (pk <= key) break;
    store<f32>(keys + (<usize>i << 2), pk);
    store<i32>(ids + (<usize>i << 2), i32At(ids, parent));
    i = parent;
  }
  store<f32>(keys + (<usize>i << 2), key);
  store<i32>(ids + (<usize>i << 2), id);
}

/** Removes the smallest entry of the min-heap holding `size` (>= 1) entries. */
@inline function heapPop(keys: usize, ids: usize, size: i32): void {
  const n = size - 1;
  const key = f32At(keys, n);
  const id = i32At(ids, n);
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= n) break;
    let ck = f32At(keys, child);
    if (child + 1 < n) {
      const rk = f32At(keys, child + 1);
      if (rk < ck) {
        child++;
        ck = rk;
      }
    }
    if (ck >= key) break;
    store<f32>(keys + (<usize>i << 2), ck);
    store<i32>(ids + (<usize>i << 2), i32At(ids, child));
    i = child;
  }
  store<f32>(keys + (<usize>i << 2), key);
  store<i32>(ids + (<usize>i << 2), id);
}

/** Where node's neighbour list on level lc starts (its first i32 is the count). */
@inline function linkList(g: usize, node: i32, lc: i32): usize {
  if (lc == 0) return ptr(g, LINKS0) + <usize>node * (<usize>(slot(g, MAX_M0) + 1) << 2);
  const at = i32At(ptr(g, UPPER_BASE), node) + (lc - 1) * (slot(g, M) + 1);
  return ptr(g, UPPER_LINKS) + (<usize>at << 2);
}

/** Greedy walk on level lc (>= 1) from `start`; returns the local minimum, its distance in the LAST_DIST slot. */
export function hnsw_greedy(g: usize, q: usize, start: i32, startDist: f32, lc: i32): i32 {
  let current = start;
  let currentDist = startDist;
  let changed = true;
  while (changed) {
    changed = false;
    const list = linkList(g, current, lc);
    const n = load<i32>(list);
    for (let j = 1; j <= n; j++) {
      const candidate = i32At(list, j);
      const d = distance(g, q, candidate);
      if (d < currentDist) {
        currentDist = d;
        current = candidate;
        changed = true;
      }
    }
  }
  store<f32>(g + LAST_DIST, currentDist);
  return current;
}

/** The next visit generation (clearing every mark when the counter wraps). */
function nextGeneration(g: usize): u32 {
  let generation = load<u32>(g + GENERATION) + 1;
  if (generation == 0) {
    memory.fill(ptr(g, VISITED), 0, <usize>slot(g, CAPACITY) << 2);
    generation = 1;
  }
  store<u32>(g + GENERATION, generation);
  return generation;
}

/**
 * Best-first search of level lc from `entry`: leaves the ef nearest in the results heap (negated keys, farthest on
 * top) and returns how many. Before the distances of a node's unvisited neighbours, one load per 64-byte line of
 * each of their rows: the loads are independent, so the rows arrive in parallel rather than one at a time.
 */
export function hnsw_search_layer(g: usize, q: usize, entry: i32, entryDist: f32, ef: i32, lc: i32): i32 {
  const dim = slot(g, DIM);
  const rowBytes = <usize>dim << 2;
  const vectors = ptr(g, VECTORS);
  const visited = ptr(g, VISITED);
  const ck = ptr(g, CAND_KEYS), ci = ptr(g, CAND_IDS);
  const rk = ptr(g, RES_KEYS), ri = ptr(g, RES_IDS);
  const pending = ptr(g, PENDING);
  const generation = nextGeneration(g);
  let cs = 0;
  let rs = 0;
  store<u32>(visited + (<usize>entry << 2), generation);
  heapPush(ck, ci, cs++, entryDist, entry);
  heapPush(rk, ri, rs++, -entryDist, entry);
  let bound = entryDist;
  let touch: f32 = 0;
  while (cs > 0) {
    if (f32At(ck, 0) > bound && rs >= ef) break;
    const c = i32At(ci, 0);
    heapPop(ck, ci, cs--);
    const list = linkList(g, c, lc);
    const n = load<i32>(list);
    let fresh = 0;
    for (let j = 1; j <= n; j++) {
      const neighbour = i32At(list, j);
      const mark = visited + (<usize>neighbour << 2);
      if (load<u32>(mark) == generation) continue;
      store<u32>(mark, generation);
      store<i32>(pending + (<usize>fresh << 2), neighbour);
      fresh++;
      const row = vectors + <usize>neighbour * rowBytes;
      for (let line: usize = 0; line < rowBytes; line += 64) touch += load<f32>(row + line);
    }
    for (let j = 0; j < fresh; j++) {
      const neighbour = i32At(pending, j);
      const d: f32 = 1 - hnsw_dot(q, vectors + <usize>neighbour * rowBytes, dim);
      if (rs < ef || d < bound) {
        heapPush(ck, ci, cs++, d, neighbour);
        heapPush(rk, ri, rs++, -d, neighbour);
        if (rs > ef) heapPop(rk, ri, rs--);
        bound = -f32At(rk, 0);
      }
    }
  }
  store<f32>(g + TOUCH_SINK, touch);
  store<i32>(g + RES_SIZE, rs);
  return rs;
}

/** Empties the results heap into ids/dist nearest first, keeping only the k nearest; returns how many were written. */
export function hnsw_take_results(g: usize, k: i32, ids: usize, dist: usize): i32 {
  const rk = ptr(g, RES_KEYS), ri = ptr(g, RES_IDS);
  let rs = slot(g, RES_SIZE);
  while (rs > k) heapPop(rk, ri, rs--);
  const n = rs;
  for (let i = n - 1; i >= 0; i--) {
    store<i32>(ids + (<usize>i << 2), i32At(ri, 0));
    store<f32>(dist + (<usize>i << 2), -f32At(rk, 0));
    heapPop(rk, ri, rs--);
  }
  store<i32>(g + RES_SIZE, 0);
  return n;
}

/** The k nearest nodes to unit vector q (search list ef >= k) into ids / dist (1 - cosine), nearest first. */
export function hnsw_search(g: usize, q: usize, k: i32, ef: i32, ids: usize, dist: usize): i32 {
  let current = slot(g, ENTRY);
  if (current < 0) return 0;
  let currentDist = distance(g, q, current);
  for (let lc = slot(g, MAX_LEVEL); lc > 0; lc--) {
    current = hnsw_greedy(g, q, current, currentDist, lc);
    currentDist = load<f32>(g + LAST_DIST);
  }
  hnsw_search_layer(g, q, current, currentDist, max(ef, k), 0);
  return hnsw_take_results(g, k, ids, dist);
}

/**
 * Keeps, in place at the front of the selection scratch (n entries sorted nearest first), the candidates closer
 * to the query than to any one already kept, up to m of them; returns how many were kept.
 */
function selectHeuristic(g: usize, n: i32, m: i32): i32 {
  if (n <= m) return n;
  const ids = ptr(g, SEL_IDS), dist = ptr(g, SEL_DIST);
  const dim = slot(g, DIM);
  const rowBytes = <usize>dim << 2;
  const vectors = ptr(g, VECTORS);
  let kept = 0;
  for (let i = 0; i < n && kept < m; i++) {
    const e = i32At(ids, i);
    const de = f32At(dist, i);
    const row = vectors + <usize>e * rowBytes;
    let good = true;
    for (let r = 0; r < kept; r++) {
      if (1 - hnsw_dot(row, vectors + <usize>i32At(ids, r) * rowBytes, dim) < de) {
        good = false;
        break;
      }
    }
    if (good) {
      store<i32>(ids + (<usize>kept << 2), e);
      store<f32>(dist + (<usize>kept << 2), de);
      kept++;
    }
  }
  return kept;
}

/** Insertion sort of the first n selection entries by distance (n <= 2M + 1). */
function sortSelection(g: usize, n: i32): void {
  const ids = ptr(g, SEL_IDS), dist = ptr(g, SEL_DIST);
  for (let i = 1; i < n; i++) {
    const d = f32At(dist, i);
    const id = i32At(ids, i);
    let j = i - 1;
    while (j >= 0 && f32At(dist, j) > d) {
      store<f32>(dist + (<usize>(j + 1) << 2), f32At(dist, j));
      store<i32>(ids + (<usize>(j + 1) << 2), i32At(ids, j));
      j--;
    }
    store<f32>(dist + (<usize>(j + 1) << 2), d);
    store<i32>(ids + (<usize>(j + 1) << 2), id);
  }
}

/** Adds node to target's list on level lc; a full list is re-selected by the heuristic from the list plus node. */
function addBackLink(g: usize, target: i32, node: i32, lc: i32, maxLinks: i32): void {
  const list = linkList(g, target, lc);
  const n = load<i32>(list);
  for (let j = 1; j <= n; j++) if (i32At(list, j) == node) return;
  if (n < maxLinks) {
    store<i32>(list + (<usize>(n + 1) << 2), node);
    store<i32>(list, n + 1);
    return;
  }
  const ids = ptr(g, SEL_IDS), dist = ptr(g, SEL_DIST);
  const t = ptr(g, VECTORS) + <usize>target * (<usize>slot(g, DIM) << 2);
  store<i32>(ids, node);
  store<f32>(dist, distance(g, t, node));
  for (let j = 1; j <= n; j++) {
    const other = i32At(list, j);
    store<i32>(ids + (<usize>j << 2), other);
    store<f32>(dist + (<usize>j << 2), distance(g, t, other));
  }
  sortSelection(g, n + 1);
  const kept = selectHeuristic(g, n + 1, maxLinks);
  store<i32>(list, kept);
  for (let j = 0; j < kept; j++) store<i32>(list + (<usize>(j + 1) << 2), i32At(ids, j));
}

/** Links node on level lc to up to m of the search results (heuristic) and each of them back; returns the nearest. */
function connect(g: usize, node: i32, lc: i32, maxLinks: i32): i32 {
  const ids = ptr(g, SEL_IDS), dist = ptr(g, SEL_DIST);
  const n = hnsw_take_results(g, slot(g, RES_SIZE), ids, dist);
  const closest = n > 0 ? i32At(ids, 0) : node;
  const count = selectHeuristic(g, n, slot(g, M));
  const chosen = ptr(g, CHOSEN);
  memory.copy(chosen, ids, <usize>count << 2);
  const list = linkList(g, node, lc);
  store<i32>(list, count);
  memory.copy(list + 4, chosen, <usize>count << 2);
  for (let i = 0; i < count; i++) addBackLink(g, i32At(chosen, i), node, lc, maxLinks);
  return closest;
}

/**
 * Inserts node (its unit vector already in its row) at `level`. The caller has set its upperBase and zeroed its
 * upper blocks when level >= 1, and made room: nodes are added in order, node = the count before the call.
 */
export function hnsw_insert(g: usize, node: i32, level: i32): void {
  store<u8>(ptr(g, LEVELS) + <usize>node, <u8>level);
  store<i32>(linkList(g, node, 0), 0);
  const entry = slot(g, ENTRY);
  const maxLevel = slot(g, MAX_LEVEL);
  if (entry < 0) {
    store<i32>(g + ENTRY, node);
    store<i32>(g + MAX_LEVEL, level);
    return;
  }
  const q = ptr(g, VECTORS) + <usize>node * (<usize>slot(g, DIM) << 2);
  let current = entry;
  let currentDist = distance(g, q, current);
  for (let lc = maxLevel; lc > level; lc--) {
    current = hnsw_greedy(g, q, current, currentDist, lc);
    currentDist = load<f32>(g + LAST_DIST);
  }
  for (let lc = min(level, maxLevel); lc >= 0; lc--) {
    hnsw_search_layer(g, q, current, currentDist, slot(g, EF_CONSTRUCTION), lc);
    current = connect(g, node, lc, lc == 0 ? slot(g, MAX_M0) : slot(g, M));
    currentDist = distance(g, q, current);
  }
  if (level > maxLevel) {
    store<i32>(g + ENTRY, node);
    store<i32>(g + MAX_LEVEL, level);
  }
}
