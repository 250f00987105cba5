// spreadActivation over a weighted CSR graph, `iterations` synchronous hops:
//   next[j] = a[j] + decay * sum over edges i -> j with a[i] >= threshold of w(i, j) * a[i]
// Every contribution of a hop is computed from the previous hop's activations, then added. Sums are float64;
// activations are rounded to f32 after each hop, as they are f32 tensors between hops on every backend.
import { InvalidArgumentError } from '@tandem/core';
import { dim, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf, readU32 } from '../bytes.ts';

/** A directed weighted graph in CSR form: node i's edges are rowPtr[i] .. rowPtr[i + 1] - 1. */
export interface CsrGraph {
  /** Row pointers [nodes + 1], non-decreasing, from 0 to the edge count. */
  readonly rowPtr: Uint32Array;
  /** Target node of each edge [edges]. */
  readonly colIdx: Uint32Array;
  /** Weight of each edge [edges]. */
  readonly weights: Float32Array;
}

/** How activation spreads. */
export interface SpreadParams {
  /** Multiplier per hop, 0 < decay <= 1. */
  readonly decay: number;
  /** Nodes below this activation do not spread. */
  readonly threshold: number;
  /** Hops, >= 1. */
  readonly iterations: number;
}

/** Throws InvalidArgumentError unless the CSR arrays describe a graph over `nodes` nodes. */
export function validateCsr(graph: CsrGraph, nodes: number): void {
  const { rowPtr, colIdx, weights } = graph;
  expectLength('spreadActivation.rowPtr', rowPtr, nodes + 1);
  expectLength('spreadActivation.weights', weights, colIdx.length);
  if (rowPtr[0] !== 0) throw new InvalidArgumentError('spreadActivation.rowPtr[0]', rowPtr[0], 'must be 0');
  if (rowPtr[nodes] !== colIdx.length)
    throw new InvalidArgumentError(
      `spreadActivation.rowPtr[${nodes}]`,
      rowPtr[nodes],
      `must equal the edge count (${colIdx.length})`,
    );
  for (let i = 0; i < nodes; i++) {
    if ((rowPtr[i + 1] ?? 0) < (rowPtr[i] ?? 0))
      throw new InvalidArgumentError(
        `spreadActivation.rowPtr[${i + 1}]`,
        rowPtr[i + 1],
        `must be >= rowPtr[${i}] (${rowPtr[i]})`,
      );
  }
  for (let e = 0; e < colIdx.length; e++) {
    if ((colIdx[e] ?? 0) >= nodes)
      throw new InvalidArgumentError(`spreadActivation.colIdx[${e}]`, colIdx[e], `must be < the node count (${nodes})`);
  }
}

/** Activation of every node after `iterations` hops from `initial`. */
export function spreadActivation(graph: CsrGraph, initial: Float32Array, params: SpreadParams): Float32Array {
  const nodes = initial.length;
  validateCsr(graph, nodes);
  const { rowPtr, colIdx, weights } = graph;
  let current = Float32Array.from(initial);
  const incoming = new Float64Array(nodes);
  for (let hop = 0; hop < params.iterations; hop++) {
    incoming.fill(0);
    for (let i = 0; i < nodes; i++) {
      const a = current[i] ?? 0;
      if (!(a >= params.threshold)) continue;
      for (let e = rowPtr[i] ?? 0; e < (rowPtr[i + 1] ?? 0); e++) {
        const j = colIdx[e] ?? 0;
        incoming[j] = (incoming[j] ?? 0) + (weights[e] ?? 0) * a;
      }
    }
    const next = new Float32Array(nodes);
    for (let j = 0; j < nodes; j++) next[j] = (current[j] ?? 0) + params.decay * (incoming[j] ?? 0);
    current = next;
  }
  return current;
}

/** The reference's spreadActivation (float64 sums and the f32 activations of a hop as scratch), seed vector by seed vector. */
export const spreadActivationKernel: ReferenceKernel<'spreadActivation'> = {
  run(op) {
    const graph = {
      rowPtr: readU32(op.rowPtr.data, 'spreadActivation.rowPtr'),
      colIdx: readU32(op.colIdx.data, 'spreadActivation.colIdx'),
      weights: f32(op.weights, 'spreadActivation.weights'),
    };
    const params = { decay: op.decay, threshold: op.threshold, iterations: op.iterations };
    const initial = f32(op.initial, 'spreadActivation.initial');
    const nodes = dim(op.initial, -1);
    const out = new Float32Array(initial.length);
    for (let seed = 0; seed * nodes < initial.length; seed++) {
      out.set(spreadActivation(graph, initial.subarray(seed * nodes, (seed + 1) * nodes), params), seed * nodes);
    }
    return [bytesOf(out)];
  },
  scratchBytes: (op) => 16 * dim(op.initial, -1),
};
