// CsrGraph: a directed weighted graph in compressed sparse row form, validated once, uploaded once per engine.
// Node i's out-edges are rowPtr[i] .. rowPtr[i + 1] - 1; edge e goes to colIdx[e] with weight weights[e].
import { InvalidArgumentError, type Engine, type Tensor } from '@tandem/core';

/** One directed edge for CsrGraph.fromEdges. */
export interface WeightedEdge {
  /** Source node. */
  from: number;
  /** Target node. */
  to: number;
  /** Weight, finite. */
  weight: number;
}

/** The graph's arrays as engine tensors (u32 rowPtr and colIdx, f32 weights), as the spreadActivation op takes them. */
export interface CsrTensors {
  /** Row pointers, u32 [nodes + 1]. */
  readonly rowPtr: Tensor<'u32'>;
  /** Target of each edge, u32 [edges]. */
  readonly colIdx: Tensor<'u32'>;
  /** Weight of each edge, f32 [edges]. */
  readonly weights: Tensor<'f32'>;
}

/** A validated CSR graph; its tensors are made once per engine and stay resident where the engine puts them. */
export class CsrGraph {
  /** Number of nodes. */
  readonly nodeCount: number;
  /** Number of edges. */
  readonly edgeCount: number;
  /** Row pointers [nodeCount + 1], non-decreasing from 0 to edgeCount. */
  readonly rowPtr: Uint32Array;
  /** Target node of each edge [edgeCount]. */
  readonly colIdx: Uint32Array;
  /** Weight of each edge [edgeCount]. */
  readonly weights: Float32Array;
  private readonly tensors = new WeakMap<Engine, CsrTensors>();

  private constructor(rowPtr: Uint32Array, colIdx: Uint32Array, weights: Float32Array) {
    this.rowPtr = rowPtr;
    this.colIdx = colIdx;
    this.weights = weights;
    this.nodeCount = rowPtr.length - 1;
    this.edgeCount = colIdx.length;
  }

  /** A graph of `nodeCount` nodes from an edge list (edges of a node keep their order; duplicates add up when spreading). */
  static fromEdges(nodeCount: number, edges: readonly WeightedEdge[]): CsrGraph {
    if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 2 ** 32 - 2) {
      throw new InvalidArgumentError(
        'CsrGraph.fromEdges.nodeCount',
        nodeCount,
        `must be an integer in [0, ${2 ** 32 - 2}]`,
      );
    }
    const rowPtr = new Uint32Array(nodeCount + 1);
    for (let e = 0; e < edges.length; e++) {
      const edge = edges[e];
      if (edge === undefined)
        throw new InvalidArgumentError(`CsrGraph.fromEdges.edges[${e}]`, edge, 'must be an edge { from, to, weight }');
      checkNode(`CsrGraph.fromEdges.edges[${e}].from`, edge.from, nodeCount);
      checkNode(`CsrGraph.fromEdges.edges[${e}].to`, edge.to, nodeCount);
      if (!Number.isFinite(edge.weight))
        throw new InvalidArgumentError(`CsrGraph.fromEdges.edges[${e}].weight`, edge.weight, 'must be finite');
      rowPtr[edge.from + 1] = (rowPtr[edge.from + 1] ?? 0) + 1;
    }
    for (let i = 0; i < nodeCount; i++) rowPtr[i + 1] = (rowPtr[i + 1] ?? 0) + (rowPtr[i] ?? 0);
    const next = rowPtr.slice(0, nodeCount);
    const colIdx = new Uint32Array(edges.length);
    const weights = new Float32Array(edges.length);
    for (const edge of edges) {
      const slot = next[edge.from] ?? 0;
      next[edge.from] = slot + 1;
      colIdx[slot] = edge.to;
      weights[slot] = edge.weight;
    }
    return new CsrGraph(rowPtr, colIdx, weights);
  }

  /**
   * A graph from CSR arrays (copied), after checking them: rowPtr starts at 0, never decreases and ends at the edge
   * count; every colIdx is a node; every weight is finite. Int32Array input (e.g. @tandem/datasets' WordNet) is accepted.
   */
  static fromCsr(rowPtr: Int32Array | Uint32Array, colIdx: Int32Array | Uint32Array, weights: Float32Array): CsrGraph {
    const name = 'CsrGraph.fromCsr';
    if (rowPtr.length < 1)
      throw new InvalidArgumentError(`${name}.rowPtr.length`, rowPtr.length, 'must be >= 1 (node count + 1)');
    if (weights.length !== colIdx.length)
      throw new InvalidArgumentError(
        `${name}.weights.length`,
        weights.length,
        `must equal colIdx.length (${colIdx.length})`,
      );
    const nodes = rowPtr.length - 1;
    const edges = colIdx.length;
    if (rowPtr[0] !== 0) throw new InvalidArgumentError(`${name}.rowPtr[0]`, rowPtr[0], 'must be 0');
    for (let i = 0; i < nodes; i++) {
      const [begin, end] = [rowPtr[i] ?? 0, rowPtr[i + 1] ?? 0];
      if (end < begin)
        throw new InvalidArgumentError(
          `${name}.rowPtr[${i + 1}]`,
          end,
          `must be >= rowPtr[${i}] (${begin}): row pointers never decrease`,
        );
    }
    if (rowPtr[nodes] !== edges)
      throw new InvalidArgumentError(`${name}.rowPtr[${nodes}]`, rowPtr[nodes], `must equal the edge count (${edges})`);
    for (let e = 0; e < edges; e++) {
      const j = colIdx[e] ?? -1;
      if (!(j >= 0 && j < nodes))
        throw new InvalidArgumentError(`${name}.colIdx[${e}]`, j, `must be a node in [0, ${nodes - 1}]`);
      const w = weights[e] ?? Number.NaN;
      if (!Number.isFinite(w)) throw new InvalidArgumentError(`${name}.weights[${e}]`, w, 'must be finite');
    }
    return new CsrGraph(Uint32Array.from(rowPtr), Uint32Array.from(colIdx), Float32Array.from(weights));
  }

  /** The graph's tensors on `engine`, made on first use and reused (the engine keeps them resident where they ran). */
  tensorsOn(engine: Engine): CsrTensors {
    let tensors = this.tensors.get(engine);
    if (tensors === undefined || tensors.rowPtr.disposed) {
      tensors = {
        rowPtr: engine.tensor(this.rowPtr, [this.nodeCount + 1]),
        colIdx: engine.tensor(this.colIdx, [this.edgeCount]),
        weights: engine.tensor(this.weights, [this.edgeCount]),
      };
      this.tensors.set(engine, tensors);
    }
    return tensors;
  }

  /** Frees this graph's tensors on `engine` (they are made again if the graph is used there later). */
  release(engine: Engine): void {
    const tensors = this.tensors.get(engine);
    if (tensors === undefined) return;
    this.tensors.delete(engine);
    tensors.rowPtr.dispose();
    tensors.colIdx.dispose();
    tensors.weights.dispose();
  }
}

function checkNode(argument: string, node: number, nodeCount: number): void {
  if (!Number.isInteger(node) || node < 0 || node >= nodeCount)
    throw new InvalidArgumentError(argument, node, `must be a node in [0, ${nodeCount - 1}]`);
}
