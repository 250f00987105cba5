// Turning request fields into query vectors, with errors that name the field.
import { RequestError } from './errors.ts';
import type { ServerContext } from './context.ts';

/**
 * A word's row: the word as given, else folded to lower case (the wink words are lower case). Lookup and exclusion
 * both go through here, so "King" finds king's vector and keeps king out of the answers. 404 naming the field.
 */
export function wordRow(ctx: ServerContext, word: string, field: string): number {
  const row = ctx.wordIndex.get(word) ?? ctx.wordIndex.get(word.toLowerCase());
  if (row === undefined)
    throw new RequestError(404, field, `${field}: "${word}" is not among the ${ctx.words.length} words loaded`);
  return row;
}

/** A word's vector (a copy of the loaded row); 404 naming the field when the word is unknown. */
export function wordVector(ctx: ServerContext, word: string, field: string): Float32Array {
  return ctx.vectors.vector(wordRow(ctx, word, field));
}

/** A raw vector from a request: the data's dimension, finite, not all zero. */
export function rawVector(ctx: ServerContext, values: readonly number[], field: string): Float32Array {
  if (values.length !== ctx.dim)
    throw new RequestError(400, field, `${field} has ${values.length} numbers; must have ${ctx.dim}`);
  const v = Float32Array.from(values);
  if (!v.every(Number.isFinite)) throw new RequestError(400, field, `${field} must hold finite numbers only`);
  if (v.every((x) => x === 0))
    throw new RequestError(400, field, `${field} must not be all zeros (cosine is undefined)`);
  return v;
}

/** The query of a { word } or { vector } object. */
export function queryVector(ctx: ServerContext, q: { word?: string; vector?: number[] }, field: string): Float32Array {
  if (q.word !== undefined) return wordVector(ctx, q.word, `${field}word`);
  return rawVector(ctx, q.vector ?? [], `${field}vector`);
}

/** Unit-length copy. */
export function unit(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  return v.map((x) => x * inv);
}
