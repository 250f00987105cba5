// The part of the WordNet graph worth drawing after spreading activation: the most activated synsets (the
// sources always among them) and the edges between them.

/** A drawn synset. */
export interface GraphNode {
  /** Node index in the full graph. */
  readonly node: number;
  /** Its activation. */
  readonly activation: number;
  /** Whether activation started here. */
  readonly source: boolean;
}

/** A drawn edge (one per connected pair, the larger weight of its two directions). */
export interface GraphLink {
  /** Position of one end in the node list. */
  readonly a: number;
  /** Position of the other end. */
  readonly b: number;
  /** Edge weight. */
  readonly weight: number;
}

/**
 * Indices of the `k` largest positive activations, largest first (ties: lower index first), in one pass with a
 * min-heap of the best so far: O(n log k), where sorting every reached synset (up to 117,791) cost a long task.
 */
export function topActive(activation: Float32Array, k: number, skip: ReadonlySet<number> = new Set()): number[] {
  const heap: number[] = []; // heap[0] is the worst of the best k so far
  const worse = (a: number, b: number): boolean => {
    const va = activation[a] ?? 0;
    const vb = activation[b] ?? 0;
    return va < vb || (va === vb && a > b);
  };
  const swap = (i: number, j: number): void => {
    const t = heap[i] ?? 0;
    heap[i] = heap[j] ?? 0;
    heap[j] = t;
  };
  for (let i = 0; i < activation.length && k > 0; i++) {
    if (!((activation[i] ?? 0) > 0) || skip.has(i)) continue;
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at] ?? 0, heap[parent] ?? 0)) break;
        swap(at, parent);
        at = parent;
      }
    } else if (worse(heap[0] ?? 0, i)) {
      heap[0] = i;
      for (let at = 0; ; ) {
        const left = 2 * at + 1;
        let worst = at;
        if (left < heap.length && worse(heap[left] ?? 0, heap[worst] ?? 0)) worst = left;
        if (left + 1 < heap.length && worse(heap[left + 1] ?? 0, heap[worst] ?? 0)) worst = left + 1;
        if (worst === at) break;
        swap(at, worst);
        at = worst;
      }
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}

/** The subgraph of the `limit` most activated nodes (the sources first, always kept). */
export function topNeighbourhood(
  activation: Float32Array,
  sources: readonly number[],
  rowPtr: Int32Array,
  colIdx: Int32Array,
  weights: Float32Array,
  limit: number,
): { nodes: GraphNode[]; links: GraphLink[] } {
  const sourceSet = new Set(sources);
  const kept = sources.filter((s) => s >= 0 && s < activation.length);
  const chosen = [...kept, ...topActive(activation, Math.max(0, limit - kept.length), sourceSet)];
  const position = new Map<number, number>();
  chosen.forEach((node, i) => {
    position.set(node, i);
  });
  const nodes = chosen.map((node) => ({ node, activation: activation[node] ?? 0, source: sourceSet.has(node) }));
  const pairs = new Map<string, GraphLink>();
  for (const [a, node] of chosen.entries()) {
    for (let e = rowPtr[node] ?? 0; e < (rowPtr[node + 1] ?? 0); e++) {
      const b = position.get(colIdx[e] ?? -1);
      if (b === undefined || b === a) continue;
      const key = a < b ? `${a}:${b}` : `${b}:${a}`;
      const weight = weights[e] ?? 0;
      const seen = pairs.get(key);
      if (seen === undefined || seen.weight < weight) pairs.set(key, { a: Math.min(a, b), b: Math.max(a, b), weight });
    }
  }
  return { nodes, links: [...pairs.values()] };
}

/** A colour from pale yellow (least active) to dark red (most), by log activation relative to the range shown. */
export function activationColour(activation: number, min: number, max: number): string {
  const lo = Math.log(Math.max(min, 1e-9));
  const hi = Math.log(Math.max(max, 1e-9));
  const t = hi > lo ? Math.min(1, Math.max(0, (Math.log(Math.max(activation, 1e-9)) - lo) / (hi - lo))) : 1;
  const stops = [
    [255, 237, 160],
    [253, 141, 60],
    [189, 0, 38],
  ] as const;
  const scaled = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(scaled));
  const f = scaled - i;
  const [r0, g0, b0] = stops[i] ?? stops[0];
  const [r1, g1, b1] = stops[i + 1] ?? stops[2];
  return `rgb(${Math.round(r0 + (r1 - r0) * f)}, ${Math.round(g0 + (g1 - g0) * f)}, ${Math.round(b0 + (b1 - b0) * f)})`;
}
