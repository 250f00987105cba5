// findSynsets: the nodes whose lemmas include a word (case-insensitive; ' ' and '_' are the same).
import type { WordNetGraph } from '../types.ts';

const INDEXES = new WeakMap<WordNetGraph, Map<string, number[]>>();

/** The form lemmas are looked up by: trimmed, lower case, '_' as ' ', runs of white space as one ' '. */
export function normalise(lemma: string): string {
  return lemma.trim().toLowerCase().replaceAll('_', ' ').replace(/\s+/g, ' ');
}

function indexOf(graph: WordNetGraph): Map<string, number[]> {
  const cached = INDEXES.get(graph);
  if (cached !== undefined) return cached;
  const index = new Map<string, number[]>();
  for (let node = 0; node < graph.lemmas.length; node++) {
    for (const lemma of graph.lemmas[node] ?? []) {
      const key = normalise(lemma);
      const list = index.get(key);
      if (list === undefined) index.set(key, [node]);
      else if (list[list.length - 1] !== node) list.push(node);
    }
  }
  INDEXES.set(graph, index);
  return index;
}

/** Node indices (ascending) of the synsets that have `lemma` among their words; [] when none. */
export function findSynsets(graph: WordNetGraph, lemma: string): number[] {
  return [...(indexOf(graph).get(normalise(lemma)) ?? [])];
}
