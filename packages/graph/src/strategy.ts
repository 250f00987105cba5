// Run strategies of a graph, resolved once per run to how each node is placed.
import type { Engine, OpKind, Strategy } from '@tandem/core';
import { GraphRunError } from './errors.ts';

/**
 * How a run places its nodes:
 * - 'auto': a placement of the whole graph priced by the engine's scheduler (compute + transfers from where each
 *   input lives), searched per run of nodes rather than per node (see placement.ts);
 * - 'per-op': the engine's own per-op decision for each node in turn (greedy: no look-ahead at the way back);
 * - 'cpu-only': every node on one CPU backend (`{ only }`, no fallback to a GPU);
 * - 'gpu-only': every node on one GPU backend (`{ only }`, no fallback);
 * - 'split': a fixed per-op rule as in ggml-style hybrid runners: matmuls and attention on the GPU (with the KV-cache
 *   concat, so the cache lives where attention reads it, as llama.cpp's offloaded KV cache does), every other op on
 *   the CPU, whatever the sizes (the naive baseline the benchmark compares with);
 * - any other engine Strategy ('gpu-preferred', 'cpu-preferred', `{ only: name }`), passed to every node.
 */
export type GraphStrategy = 'per-op' | 'cpu-only' | 'gpu-only' | 'split' | Strategy;

/** Which backend 'cpu-only', 'gpu-only' and 'split' use when the engine has several of a kind. */
export interface BackendPreference {
  /** CPU backend for 'cpu-only' and 'split' (default: the first available CPU backend in registration order). */
  readonly cpuBackend?: string;
  /** GPU backend for 'gpu-only' and 'split' (default: the first available GPU backend in registration order). */
  readonly gpuBackend?: string;
}

/** How every node of one run is placed. */
export type NodePlacer =
  | { readonly kind: 'engine'; readonly strategy: Strategy }
  | { readonly kind: 'plan' }
  | { readonly kind: 'split'; readonly cpu: string; readonly gpu: string };

/** Ops 'split' sends to the GPU. */
const SPLIT_GPU_OPS: ReadonlySet<OpKind> = new Set(['matmul', 'quantizedMatmul', 'attention', 'concat']);

/** The placer for a graph strategy; throws GraphRunError when the engine has no usable backend of a needed kind. */
export function resolveStrategy(
  engine: Engine,
  strategy: GraphStrategy,
  preference: BackendPreference = {},
): NodePlacer {
  switch (strategy) {
    case 'auto':
      return { kind: 'plan' };
    case 'per-op':
      return { kind: 'engine', strategy: 'auto' };
    case 'cpu-only':
      return { kind: 'engine', strategy: { only: backendOfKind(engine, 'cpu', strategy, preference.cpuBackend) } };
    case 'gpu-only':
      return { kind: 'engine', strategy: { only: backendOfKind(engine, 'gpu', strategy, preference.gpuBackend) } };
    case 'split':
      return {
        kind: 'split',
        cpu: backendOfKind(engine, 'cpu', strategy, preference.cpuBackend),
        gpu: backendOfKind(engine, 'gpu', strategy, preference.gpuBackend),
      };
    default:
      return { kind: 'engine', strategy };
  }
}

/** The engine strategy 'split' gives a node of this op. */
export function splitStrategy(placer: { readonly cpu: string; readonly gpu: string }, op: OpKind): Strategy {
  return { only: SPLIT_GPU_OPS.has(op) ? placer.gpu : placer.cpu };
}

/** A printable name of a strategy, for reports. */
export function strategyName(strategy: GraphStrategy): string {
  return typeof strategy === 'object' ? `only ${strategy.only}` : strategy;
}

function backendOfKind(engine: Engine, kind: 'cpu' | 'gpu', strategy: string, wanted: string | undefined): string {
  const statuses = engine.backends();
  const usable = statuses.filter(
    (b) => b.kind === kind && b.available && b.health.state !== 'unhealthy' && b.health.state !== 'unavailable',
  );
  const chosen = wanted === undefined ? usable[0] : usable.find((b) => b.name === wanted);
  if (chosen === undefined) {
    const seen = statuses
      .filter((b) => b.kind === kind)
      .map((b) => `${b.name}: ${b.available ? b.health.state : (b.unavailableReason ?? 'unavailable')}`);
    const what =
      wanted === undefined
        ? `no usable ${kind.toUpperCase()} backend`
        : `${kind.toUpperCase()} backend '${wanted}' is not usable`;
    throw new GraphRunError(
      `strategy ${strategy}`,
      `${what} (${seen.join('; ') || `none of kind ${kind} registered`})`,
    );
  }
  return chosen.name;
}
