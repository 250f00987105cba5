// Where an HnswGraph's arrays sit in its wasm module's linear memory, and the header that tells the kernels
// (wasm-kernels/hnsw.ts, whose slot table this mirrors) where each one starts. Regions are 16-byte aligned, in
// this order: header, the fixed-size scratch, the per-node arrays kept across a move (vectors, links0, upperBase,
// levels), the per-node scratch (visited marks, both heaps, the output), and upperLinks last, so that it can grow
// on its own by growing the memory.

/** Header slots (byte offsets), the same as in wasm-kernels/hnsw.ts. */
export const SLOT = {
  dim: 0,
  m: 4,
  maxM0: 8,
  efConstruction: 12,
  capacity: 16,
  entry: 20,
  maxLevel: 24,
  generation: 28,
  vectors: 32,
  levels: 36,
  links0: 40,
  upperBase: 44,
  upperLinks: 48,
  visited: 52,
  candKeys: 56,
  candIds: 60,
  resKeys: 64,
  resIds: 68,
  pending: 72,
  selIds: 76,
  selDist: 80,
  chosen: 84,
} as const;

/** Bytes of the header (hnsw_header_bytes()). */
export const HEADER_BYTES = 128;

/** The sizes a layout depends on. */
export interface GraphShape {
  /** Floats per vector. */
  readonly dim: number;
  /** Neighbours per node on levels >= 1. */
  readonly m: number;
  /** Neighbours per node on level 0. */
  readonly maxM0: number;
  /** Candidate list size while inserting. */
  readonly efConstruction: number;
}

/** Byte offsets of every region, for `capacity` nodes and `upperInts` i32s of upper-level links. */
export interface GraphLayout {
  /** Nodes the per-node regions hold. */
  readonly capacity: number;
  /** i32s the upperLinks region holds. */
  readonly upperInts: number;
  /** The header. */
  readonly header: number;
  /** One query vector (dim f32). */
  readonly query: number;
  /** Unvisited neighbours of the node being expanded (maxM0 + 1 i32). */
  readonly pending: number;
  /** Selection ids (selection entries i32). */
  readonly selIds: number;
  /** Selection distances (selection entries f32). */
  readonly selDist: number;
  /** Links chosen for a new node (maxM0 + 1 i32). */
  readonly chosen: number;
  /** capacity x dim f32. */
  readonly vectors: number;
  /** capacity x (maxM0 + 1) i32. */
  readonly links0: number;
  /** capacity i32. */
  readonly upperBase: number;
  /** capacity u8. */
  readonly levels: number;
  /** capacity u32. */
  readonly visited: number;
  /** Candidate heap keys, capacity + 1 f32. */
  readonly candKeys: number;
  /** Candidate heap ids, capacity + 1 i32. */
  readonly candIds: number;
  /** Result heap keys, capacity + 1 f32. */
  readonly resKeys: number;
  /** Result heap ids, capacity + 1 i32. */
  readonly resIds: number;
  /** A search's ids, capacity + 1 i32. */
  readonly outIds: number;
  /** A search's distances, capacity + 1 f32. */
  readonly outDist: number;
  /** upperInts i32. */
  readonly upperLinks: number;
  /** First byte past the layout. */
  readonly end: number;
}

/** A per-node region that keeps its contents when the layout moves: where, and how many bytes per node. */
export interface KeptRegion {
  /** The region's key in GraphLayout. */
  readonly key: 'vectors' | 'links0' | 'upperBase' | 'levels';
  /** Bytes per node. */
  readonly bytesPerNode: number;
}

/** The kept per-node regions in layout order. */
export function keptRegions(shape: GraphShape): readonly KeptRegion[] {
  return [
    { key: 'vectors', bytesPerNode: shape.dim * 4 },
    { key: 'links0', bytesPerNode: (shape.maxM0 + 1) * 4 },
    { key: 'upperBase', bytesPerNode: 4 },
    { key: 'levels', bytesPerNode: 1 },
  ];
}

/** Entries of the selection scratch: an insert's results (efConstruction) or a full list plus one. */
export function selectionEntries(shape: GraphShape): number {
  return Math.max(shape.efConstruction, shape.maxM0 + 1) + 1;
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

/** The layout of a graph of `capacity` nodes starting at byte `base`. */
export function layoutGraph(base: number, shape: GraphShape, capacity: number, upperInts: number): GraphLayout {
  let at = align16(base);
  const take = (bytes: number): number => {
    const start = at;
    at = align16(at + bytes);
    return start;
  };
  const selection = selectionEntries(shape);
  const header = take(HEADER_BYTES);
  const query = take(shape.dim * 4);
  const pending = take((shape.maxM0 + 1) * 4);
  const selIds = take(selection * 4);
  const selDist = take(selection * 4);
  const chosen = take((shape.maxM0 + 1) * 4);
  const vectors = take(capacity * shape.dim * 4);
  const links0 = take(capacity * (shape.maxM0 + 1) * 4);
  const upperBase = take(capacity * 4);
  const levels = take(capacity);
  const visited = take(capacity * 4);
  const heapBytes = (capacity + 1) * 4;
  const candKeys = take(heapBytes);
  const candIds = take(heapBytes);
  const resKeys = take(heapBytes);
  const resIds = take(heapBytes);
  const outIds = take(heapBytes);
  const outDist = take(heapBytes);
  const upperLinks = take(upperInts * 4);
  return {
    capacity,
    upperInts,
    header,
    query,
    pending,
    selIds,
    selDist,
    chosen,
    vectors,
    links0,
    upperBase,
    levels,
    visited,
    candKeys,
    candIds,
    resKeys,
    resIds,
    outIds,
    outDist,
    upperLinks,
    end: at,
  };
}

/** The header's pointer slots and the layout region each one names. */
export const POINTER_SLOTS = [
  ['vectors', SLOT.vectors],
  ['levels', SLOT.levels],
  ['links0', SLOT.links0],
  ['upperBase', SLOT.upperBase],
  ['upperLinks', SLOT.upperLinks],
  ['visited', SLOT.visited],
  ['candKeys', SLOT.candKeys],
  ['candIds', SLOT.candIds],
  ['resKeys', SLOT.resKeys],
  ['resIds', SLOT.resIds],
  ['pending', SLOT.pending],
  ['selIds', SLOT.selIds],
  ['selDist', SLOT.selDist],
  ['chosen', SLOT.chosen],
] as const;
