// Where auto's time goes against a strategy that placed every node as it did: the same kernels, so any gap is the
// executor's work around them (outside the nodes) or slower calls of the same nodes (in them), named node by node.
import { median } from '@tandem/core';

/** What a run report says about time, for the comparison (a RunReport fits). */
export interface TimedRun {
  /** Time outside the nodes, ms. */
  readonly hostMs: number;
  /** Each node's wall time, ms. */
  readonly nodes: ReadonlyArray<{ readonly name: string; readonly ms: number }>;
}

/** Medians of auto's runs less the other strategy's: outside the nodes, summed over nodes, and the largest per node. */
export interface PlacementGap {
  /** Median time outside the nodes, auto less the other, ms. */
  readonly outsideMs: number;
  /** Sum over nodes of each node's median, auto less the other, ms. */
  readonly nodesMs: number;
  /** The nodes with the largest gaps, largest first (at most three). */
  readonly largest: ReadonlyArray<{ readonly name: string; readonly ms: number }>;
}

/** The gap between two strategies' runs of the same placement (see the file comment). */
export function placementGap(auto: readonly TimedRun[], other: readonly TimedRun[]): PlacementGap {
  const nodeMedians = (runs: readonly TimedRun[]): Map<string, number> => {
    const byName = new Map<string, number[]>();
    for (const run of runs)
      for (const node of run.nodes) byName.set(node.name, [...(byName.get(node.name) ?? []), node.ms]);
    return new Map([...byName].map(([name, list]) => [name, median(list)] as const));
  };
  const autoNodes = nodeMedians(auto);
  const otherNodes = nodeMedians(other);
  const gaps = [...autoNodes]
    .filter(([name]) => otherNodes.has(name))
    .map(([name, ms]) => ({ name, ms: ms - (otherNodes.get(name) ?? ms) }));
  return {
    outsideMs: median(auto.map((r) => r.hostMs)) - median(other.map((r) => r.hostMs)),
    nodesMs: gaps.reduce((sum, g) => sum + g.ms, 0),
    largest: [...gaps].sort((a, b) => b.ms - a.ms).slice(0, 3),
  };
}
