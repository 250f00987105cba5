// WordNet pointer symbols (wninput(5WN)) and the edge weight each relation gets in the graph.
//
// Weights say how much activation should flow along a relation, from strong (the same idea, more general or a
// near-synonym) to weak (only topical or lexical kinship):
//   0.8  hypernym, instance hypernym (dog -> canine): the general idea is strongly implied
//   0.7  similar to (adjective clusters), verb group: near-synonyms
//   0.6  meronym and holonym (part / member / substance), entailment, cause
//   0.5  hyponym, instance hyponym (canine -> dog: one of many), attribute, also see
//   0.4  derivationally related form, pertainym, participle of verb: lexical, not conceptual, kinship
//   0.3  antonym (related, but opposite), domain / member of domain (topic, region, usage)
// Several pointers between the same two synsets (e.g. derivations between different words of both) make one
// edge with the largest weight and that relation.

/** One relation: its WordNet pointer symbols, a name and the weight of its edges. */
export interface Relation {
  /** Name, e.g. 'hypernym'. */
  readonly name: string;
  /** Pointer symbols that mean it. */
  readonly symbols: readonly string[];
  /** Edge weight in the graph. */
  readonly weight: number;
}

/** Every relation; an edge's relationOf value is its index here. */
export const RELATIONS: readonly Relation[] = [
  { name: 'hypernym', symbols: ['@'], weight: 0.8 },
  { name: 'instance hypernym', symbols: ['@i'], weight: 0.8 },
  { name: 'hyponym', symbols: ['~'], weight: 0.5 },
  { name: 'instance hyponym', symbols: ['~i'], weight: 0.5 },
  { name: 'member holonym', symbols: ['#m'], weight: 0.6 },
  { name: 'substance holonym', symbols: ['#s'], weight: 0.6 },
  { name: 'part holonym', symbols: ['#p'], weight: 0.6 },
  { name: 'member meronym', symbols: ['%m'], weight: 0.6 },
  { name: 'substance meronym', symbols: ['%s'], weight: 0.6 },
  { name: 'part meronym', symbols: ['%p'], weight: 0.6 },
  { name: 'similar to', symbols: ['&'], weight: 0.7 },
  { name: 'verb group', symbols: ['$'], weight: 0.7 },
  { name: 'entailment', symbols: ['*'], weight: 0.6 },
  { name: 'cause', symbols: ['>'], weight: 0.6 },
  { name: 'attribute', symbols: ['='], weight: 0.5 },
  { name: 'also see', symbols: ['^'], weight: 0.5 },
  { name: 'derivationally related', symbols: ['+'], weight: 0.4 },
  { name: 'pertainym', symbols: ['\\'], weight: 0.4 },
  { name: 'participle', symbols: ['<'], weight: 0.4 },
  { name: 'antonym', symbols: ['!'], weight: 0.3 },
  { name: 'domain', symbols: [';c', ';r', ';u'], weight: 0.3 },
  { name: 'domain member', symbols: ['-c', '-r', '-u'], weight: 0.3 },
];

const BY_SYMBOL = new Map<string, number>(RELATIONS.flatMap((r, i) => r.symbols.map((s): [string, number] => [s, i])));

/** The relation index of a pointer symbol, or undefined if WordNet has no such symbol. */
export function relationOfSymbol(symbol: string): number | undefined {
  return BY_SYMBOL.get(symbol);
}
