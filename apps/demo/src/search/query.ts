// A nearest-word query: one word, or an analogy written as signed words ("king - man + woman").
import { InvalidArgumentError } from '@tandem/core';

/** One word of a query with its sign. */
export interface QueryTerm {
  /** The word, lower-cased. */
  readonly word: string;
  /** +1 or -1. */
  readonly sign: 1 | -1;
}

/** Most words one query may combine. */
export const MAX_TERMS = 8;

/** Parses "king - man + woman" (or "paris"); throws InvalidArgumentError naming what is wrong. */
export function parseQuery(text: string): QueryTerm[] {
  const tokens = text
    .trim()
    .toLowerCase()
    .split(/\s*([+-])\s*|\s+/)
    .filter((t): t is string => t !== undefined && t !== '');
  if (tokens.length === 0) throw new InvalidArgumentError('query', text, 'must name at least one word');
  const terms: QueryTerm[] = [];
  let sign: 1 | -1 = 1;
  let expectWord = true;
  for (const token of tokens) {
    if (token === '+' || token === '-') {
      if (expectWord && terms.length > 0)
        throw new InvalidArgumentError('query', text, `has two operators in a row before "${token}"`);
      sign = token === '-' ? -1 : 1;
      expectWord = true;
      continue;
    }
    if (!expectWord)
      throw new InvalidArgumentError(
        'query',
        text,
        `needs + or - between "${terms[terms.length - 1]?.word ?? ''}" and "${token}"`,
      );
    terms.push({ word: token, sign });
    sign = 1;
    expectWord = false;
  }
  if (expectWord) throw new InvalidArgumentError('query', text, 'ends with an operator');
  if (terms.length > MAX_TERMS) throw new InvalidArgumentError('query', text, `combines at most ${MAX_TERMS} words`);
  return terms;
}

/** The query vector: the signed sum of the terms' unit vectors (dim floats); throws InvalidArgumentError for an unknown word. */
export function queryVector(
  terms: readonly QueryTerm[],
  rowOf: ReadonlyMap<string, number>,
  vectors: Float32Array,
  dim: number,
): Float32Array {
  const out = new Float32Array(dim);
  for (const term of terms) {
    const row = rowOf.get(term.word);
    if (row === undefined)
      throw new InvalidArgumentError(
        'query',
        term.word,
        `is not among the ${rowOf.size.toLocaleString('en')} words of this demo`,
      );
    const base = row * dim;
    for (let d = 0; d < dim; d++) out[d] = (out[d] ?? 0) + term.sign * (vectors[base + d] ?? 0);
  }
  return out;
}
