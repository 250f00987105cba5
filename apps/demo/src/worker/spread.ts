// Spreading activation from one synset on the engine, and the part of the graph worth drawing: the `limit` most
// activated synsets (the source first) with the edges between them, labelled (in the engine worker).
import type { Engine, OpEvent } from '@tandem/core';
import { spreadActivation } from '@tandem/memory';
import type { DemoGraph } from '../data/load-data.ts';
import { topNeighbourhood } from '../graph/neighbourhood.ts';
import { WORKLOAD_LABEL } from '../search/nearest.ts';
import { reasonText } from '../search/reason-text.ts';
import type { Requests, SpreadAnswer } from './protocol.ts';

/** Spreads from `args.source` and returns what the page draws. */
export async function spreadFrom(engine: Engine, wordnet: DemoGraph, args: Requests['spread']): Promise<SpreadAnswer> {
  const { source, decay, threshold, maxHops, limit, strategy } = args;
  if (!Number.isInteger(source) || source < 0 || source >= wordnet.synsetIds.length)
    throw new RangeError(`synset ${source} is not a node of this WordNet (0 to ${wordnet.synsetIds.length - 1})`);
  const events: OpEvent[] = [];
  const stop = engine.telemetry.subscribe((e) => {
    if (e.label !== WORKLOAD_LABEL) events.push(e);
  });
  const started = performance.now();
  let activation: Float32Array;
  try {
    activation = await spreadActivation(engine, wordnet.graph, {
      sources: [{ node: source, activation: 1 }],
      decay,
      threshold,
      maxHops,
      strategy,
    });
  } finally {
    stop();
  }
  const ms = performance.now() - started;
  const { nodes, links } = topNeighbourhood(
    activation,
    [source],
    wordnet.rowPtr,
    wordnet.colIdx,
    wordnet.weights,
    limit,
  );
  let reached = 0;
  for (const a of activation) if (a > 0) reached++;
  const lemmasOf = (node: number): readonly string[] => wordnet.lemmas[node] ?? [];
  return {
    nodes,
    links,
    labels: nodes.map((n) => lemmasOf(n.node)[0]?.replaceAll('_', ' ') ?? '?'),
    titles: nodes.map((n) => `${wordnet.synsetIds[n.node] ?? '?'} ${lemmasOf(n.node).join(', ')}`),
    reached,
    ms,
    ranOn: events.map((e) => `${e.op} on ${e.backend}: ${reasonText(e.reason)}`),
  };
}
