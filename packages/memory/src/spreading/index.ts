// Spreading activation over weighted graphs.
export { CsrGraph, type CsrTensors, type WeightedEdge } from './csr-graph.ts';
export {
  MAX_HOPS_PER_OP,
  spreadActivation,
  type ActivationSource,
  type SpreadActivationOptions,
} from './spread-activation.ts';
