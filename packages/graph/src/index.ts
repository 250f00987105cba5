// @tandem/graph: build a graph of core ops once, run it many times through one Engine with a residency-aware
// placement of the whole graph ('auto'), buffer planning and per-node telemetry; plus a Llama-style decoder block.
export { GraphBuilder, type GraphBuilderOptions, type InputOptions } from './graph-builder.ts';
export {
  Graph,
  GraphOutputs,
  type GraphInput,
  type GraphParts,
  type GraphRun,
  type OutputDTypes,
  type RunOptions,
} from './graph.ts';
export { GraphRunError, GraphValidationError } from './errors.ts';
export { planExecution, rootOf, type ExecutionPlan, type GraphNode } from './plan.ts';
export {
  combineReports,
  formatReport,
  graphChromeTrace,
  SAME_REASON,
  type BackendTotals,
  type NodeRecord,
  type RunReport,
} from './report.ts';
export {
  planPlacement,
  priceAssignment,
  segmentOf,
  type NodePlacement,
  type PlacementPlan,
  type PlacementRequest,
} from './placement.ts';
export type { PlacementSummary } from './node-decision.ts';
export { resolveStrategy, strategyName, type BackendPreference, type GraphStrategy } from './strategy.ts';
export type { Layout, Source, SymbolicTensor, ViewStep } from './symbolic.ts';
export {
  checkConfig,
  headDimOf,
  LLAMA_7B_DECODER,
  TINY_DECODER,
  type DecoderConfig,
  type WeightType,
} from './llama/config.ts';
export {
  createDecoderWeights,
  createRandomBlockWeights,
  randomOutputProjection,
  randomActivations,
  weightBytes,
  type DecoderWeights,
  type ProjectionWeights,
} from './llama/weights.ts';
export { KvCache } from './llama/kv-cache.ts';
export { referenceDecoderStep, type ReferenceStep } from './llama/reference-block.ts';
export {
  addDecoderLayer,
  buildDecoderStepGraph,
  decoderTensors,
  type DecoderGraphContext,
  type DecoderLayerNodes,
  type DecoderTensors,
} from './llama/decoder-graphs.ts';
export { buildDecoderModelGraph, type DecoderModelTensors } from './llama/decoder-model.ts';
export { DecoderBlock, type DecoderBlockOptions, type DecoderStep } from './llama/decoder-block.ts';
