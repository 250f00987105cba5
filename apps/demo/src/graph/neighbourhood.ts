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

/** The subgraph of the `limit` most activated nodes. */
export function topNeighbourhood(activation: Float32Array, sources: readonly number[], rowPtr: Int32Array, colIdx: Int32Array, weights: Float32Array, limit: number): { nodes: GraphNode[]; links: GraphLink[] } {
  const active: number[] = [];
  for (let i = 0; i < activation.length; i++) if ((activation[i] ?? 0) > 0) active.push(i);
  active.sort((x, y) => (activation[y] ?? 0) - (activation[x] ?? 0) || x - y);
  const sourceSet = new Set(sources);
  const chosen = [...sources.filter((s) => s >= 0 && s < activation.length), ...active.filter((n) => !sourceSet.has(n))].slice(0, Math.max(limit, sources.length));
  const position = new Map<number, number>();
  chosen.forEach((node, i) => position.set(node, i));
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
