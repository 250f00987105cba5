// spreadActivation: activation spreading from source nodes over a CsrGraph, run as the engine's spreadActivation op.
//
// Semantics (the op's, see @tandem/core ops.ts and the reference kernel): maxHops synchronous hops of
//   next[j] = a[j] + decay * sum over edges i -> j with a[i] >= threshold of w(i, j) * a[i]
// starting from the sources' activations (a node named twice gets the sum). Activation accumulates: nodes keep
// what they had, and a node k hops from a source receives decay^k times the product of the weights on the way.
// The graph's tensors stay resident on the engine between calls; hops run in ops of at most MAX_HOPS_PER_OP
// iterations each, the activation passing from one op to the next without leaving the backend.
import { InvalidArgumentError, type Engine, type Strategy } from '@tandem/core';
import { CsrGraph } from './csr-graph.ts';

/** A node where activation starts. */
export interface ActivationSource {
  /** Node index. */
  node: number;
  /** Starting activation, finite. */
  activation: number;
}

/** Options of spreadActivation. */
export interface SpreadActivationOptions {
  /** Where activation starts. */
  sources: readonly ActivationSource[];
  /** Multiplier per hop, 0 < decay <= 1. */
  decay: number;
  /** Nodes whose activation is below this do not spread (finite). */
  threshold: number;
  /** Hops, an integer >= 0 (0 returns the sources' activation). */
  maxHops: number;
  /** Strategy of the ops (default: the engine's). */
  strategy?: Strategy;
}

/** Most hops one op runs (the op's own limit); more hops chain ops. */
export const MAX_HOPS_PER_OP = 1000;

/** The activation of every node after spreading from `sources` for maxHops hops; bad input throws InvalidArgumentError. */
export async function spreadActivation(
  engine: Engine,
  graph: CsrGraph,
  options: SpreadActivationOptions,
): Promise<Float32Array> {
  if (!(graph instanceof CsrGraph))
    throw new InvalidArgumentError('spreadActivation.graph', typeof graph, 'must be a CsrGraph (fromEdges or fromCsr)');
  const { decay, threshold, maxHops } = options;
  if (!(decay > 0 && decay <= 1)) throw new InvalidArgumentError('spreadActivation.decay', decay, 'must be in (0, 1]');
  if (!Number.isFinite(threshold))
    throw new InvalidArgumentError('spreadActivation.threshold', threshold, 'must be finite');
  if (!Number.isInteger(maxHops) || maxHops < 0)
    throw new InvalidArgumentError('spreadActivation.maxHops', maxHops, 'must be an integer >= 0');
  const initial = initialActivation(graph.nodeCount, options.sources);
  if (maxHops === 0 || graph.edgeCount === 0 || !initial.some((a) => a !== 0)) return initial;
  const graphTensors = graph.tensorsOn(engine);
  let current = engine.tensor(initial, [graph.nodeCount]);
  try {
    for (let done = 0; done < maxHops; ) {
      const iterations = Math.min(MAX_HOPS_PER_OP, maxHops - done);
      const next = await engine.spreadActivation(graphTensors, current, {
        decay,
        threshold,
        iterations,
        strategy: options.strategy,
        label: 'memory.spread',
      });
      current.dispose();
      current = next;
      done += iterations;
    }
    return await current.read();
  } finally {
    current.dispose();
  }
}

/** Starting activation of every node: each source's activation added at its node (in float64, rounded once). */
function initialActivation(nodeCount: number, sources: readonly ActivationSource[]): Float32Array {
  if (!Array.isArray(sources))
    throw new InvalidArgumentError(
      'spreadActivation.sources',
      typeof sources,
      'must be an array of { node, activation }',
    );
  const sums = new Float64Array(nodeCount);
  for (let s = 0; s < sources.length; s++) {
    const source = sources[s];
    const node = source?.node ?? Number.NaN;
    if (!Number.isInteger(node) || node < 0 || node >= nodeCount)
      throw new InvalidArgumentError(
        `spreadActivation.sources[${s}].node`,
        node,
        `must be a node in [0, ${nodeCount - 1}]`,
      );
    const activation = source?.activation ?? Number.NaN;
    if (!Number.isFinite(activation))
      throw new InvalidArgumentError(`spreadActivation.sources[${s}].activation`, activation, 'must be finite');
    sums[node] = (sums[node] ?? 0) + activation;
  }
  return Float32Array.from(sums);
}
