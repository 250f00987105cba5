// Edge lists -> CSR (rows by source node, columns ascending), merging repeated (from, to) pairs into one edge that
// keeps the largest weight and its relation.

/** Directed weighted edges as parallel arrays. */
export interface EdgeList {
  /** Source node of each edge. */
  readonly from: number[];
  /** Target node of each edge. */
  readonly to: number[];
  /** Weight of each edge. */
  readonly weight: number[];
  /** Relation index of each edge. */
  readonly relation: number[];
}

/** A graph in CSR form with a relation per edge. */
export interface RelationCsr {
  /** Row pointers [nodes + 1]. */
  readonly rowPtr: Int32Array;
  /** Target of each edge, ascending within a row. */
  readonly colIdx: Int32Array;
  /** Weight of each edge. */
  readonly weights: Float32Array;
  /** Relation index of each edge. */
  readonly relationOf: Uint8Array;
}

/** CSR of `edges` over `nodeCount` nodes, duplicates merged (largest weight wins). */
export function buildCsr(nodeCount: number, edges: EdgeList): RelationCsr {
  const m = edges.from.length;
  const counts = new Int32Array(nodeCount + 1);
  for (let e = 0; e < m; e++) counts[(edges.from[e] ?? 0) + 1] = (counts[(edges.from[e] ?? 0) + 1] ?? 0) + 1;
  for (let i = 0; i < nodeCount; i++) counts[i + 1] = (counts[i + 1] ?? 0) + (counts[i] ?? 0);
  const order = new Int32Array(m);
  const fill = counts.slice(0, nodeCount);
  for (let e = 0; e < m; e++) {
    const row = edges.from[e] ?? 0;
    order[fill[row] ?? 0] = e;
    fill[row] = (fill[row] ?? 0) + 1;
  }
  const rowPtr = new Int32Array(nodeCount + 1);
  const colIdx: number[] = [];
  const weights: number[] = [];
  const relations: number[] = [];
  for (let row = 0; row < nodeCount; row++) {
    const start = counts[row] ?? 0;
    const end = counts[row + 1] ?? 0;
    const rowEdges = Array.from(order.subarray(start, end)).sort((a, b) => (edges.to[a] ?? 0) - (edges.to[b] ?? 0));
    for (const e of rowEdges) {
      const to = edges.to[e] ?? 0;
      const weight = edges.weight[e] ?? 0;
      const last = colIdx.length - 1;
      if (last >= (rowPtr[row] ?? 0) && colIdx[last] === to) {
        if (weight > (weights[last] ?? 0)) {
          weights[last] = weight;
          relations[last] = edges.relation[e] ?? 0;
        }
        continue;
      }
      colIdx.push(to);
      weights.push(weight);
      relations.push(edges.relation[e] ?? 0);
    }
    rowPtr[row + 1] = colIdx.length;
  }
  return {
    rowPtr,
    colIdx: Int32Array.from(colIdx),
    weights: Float32Array.from(weights),
    relationOf: Uint8Array.from(relations),
  };
}
