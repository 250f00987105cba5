// Run strategies of a graph, resolved to the engine's per-call Strategy once per run.
import type { Engine, Strategy } from '@tandem/core';
import { GraphRunError } from './errors.ts';

/**
 * How a run places its nodes:
 * - 'auto': the engine's cost model per node (it counts moving inputs that are not resident on a backend);
 * - 'cpu-only': every node on one CPU backend (`{ only }`, no fallback to a GPU);
 * - 'gpu-only': every node on one GPU backend (`{ only }`, no fallback);
 * - any engine Strategy ('gpu-preferred', 'cpu-preferred', `{ only: name }`), passed through.
 */
export type GraphStrategy = 'cpu-only' | 'gpu-only' | Strategy;

/** Which backend 'cpu-only' and 'gpu-only' use when the engine has several of that kind. */
export interface BackendPreference {
  /** CPU backend for 'cpu-only' (default: the first available CPU backend in registration order). */
  readonly cpuBackend?: string;
  /** GPU backend for 'gpu-only' (default: the first available GPU backend in registration order). */
  readonly gpuBackend?: string;
}

/** The engine Strategy for a graph strategy; throws GraphRunError when the engine has no usable backend of that kind. */
export function resolveStrategy(engine: Engine, strategy: GraphStrategy, preference: BackendPreference = {}): Strategy {
  if (strategy !== 'cpu-only' && strategy !== 'gpu-only') return strategy;
  const kind = strategy === 'cpu-only' ? 'cpu' : 'gpu';
  const wanted = kind === 'cpu' ? preference.cpuBackend : preference.gpuBackend;
  const statuses = engine.backends();
  const usable = statuses.filter((b) => b.kind === kind && b.available && b.health.state !== 'unhealthy' && b.health.state !== 'unavailable');
  const chosen = wanted === undefined ? usable[0] : usable.find((b) => b.name === wanted);
  if (chosen === undefined) {
    const seen = statuses.filter((b) => b.kind === kind).map((b) => `${b.name}: ${b.available ? b.health.state : (b.unavailableReason ?? 'unavailable')}`);
    const what = wanted === undefined ? `no usable ${kind.toUpperCase()} backend` : `${kind.toUpperCase()} backend '${wanted}' is not usable`;
    throw new GraphRunError(`strategy ${strategy}`, `${what} (${seen.join('; ') || `none of kind ${kind} registered`})`);
  }
  return { only: chosen.name };
}

/** A printable name of a strategy, for reports. */
export function strategyName(strategy: GraphStrategy): string {
  return typeof strategy === 'object' ? `only ${strategy.only}` : strategy;
}
