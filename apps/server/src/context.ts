// Everything the API serves from, loaded once at start: the engine, the word vectors (brute force and HNSW),
// the batch engine, WordNet as a graph for spreading activation, and the turns compute steps take (turns.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '@tandem/core';
import { loadWinkEmbeddings, loadWordNet, PackedWordNet } from '@tandem/datasets';
import { BatchEngine, CsrGraph, HnswIndex, VectorOps, type BatchSearchTarget } from '@tandem/memory';
import { Turns } from './turns.ts';

/** What the routes use. */
export interface ServerContext {
  /** The engine every computation goes through. */
  readonly engine: Engine;
  /** The words, in frequency order. */
  readonly words: readonly string[];
  /** Word -> row. */
  readonly wordIndex: ReadonlyMap<string, number>;
  /** Floats per word vector. */
  readonly dim: number;
  /** Brute-force cosine search over every word. */
  readonly vectors: VectorOps;
  /** Approximate search over the same words. */
  readonly hnsw: HnswIndex;
  /** Concurrent single searches gathered into batches. */
  readonly batches: BatchEngine;
  /** WordNet's synsets (ids, lemmas, glosses) and lemma index, packed: few heap objects, so major GCs stay short. */
  readonly synsets: PackedWordNet;
  /** WordNet's relations as a CSR graph on the engine. */
  readonly graph: CsrGraph;
  /** One compute step per event-loop iteration (every search batch, spread and /trace slice takes one). */
  readonly turns: Turns;
  /** Releases what the context holds (not the engine). */
  close(): Promise<void>;
}

/** How much to load. */
export interface ContextOptions {
  /** Wink words to load, most frequent first. */
  readonly words: number;
  /** Where the built HNSW index is cached (default <repo>/.cache/server). */
  readonly cacheDir?: string;
  /** Progress lines (loading takes seconds). */
  readonly log?: (line: string) => void;
}

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Multiply-adds one search batch may take: 16 queries over 50,000 words of 100 floats, a few ms of matmul and topK
 * on the WASM backend (docs/decisions.md, issue 32 (server)), so a batch is one short turn of the event loop.
 */
export const STEP_MULTIPLY_ADDS = 16 * 50_000 * 100;

/** Batches from this many queries are scored by matmul: at dim 100 it beats the cosine kernel from 8 up (decisions.md). */
const MATMUL_MIN_QUERIES = 8;

/** Most queries in one batch, whatever the data's size. */
const MAX_BATCH_QUERIES = 64;

/** Queries per batch: as many as fit STEP_MULTIPLY_ADDS over `count` vectors of `dim` floats, 1 to MAX_BATCH_QUERIES. */
export function queriesPerStep(count: number, dim: number): number {
  return Math.max(1, Math.min(MAX_BATCH_QUERIES, Math.floor(STEP_MULTIPLY_ADDS / (count * dim))));
}

/** `vectors` as a batch target whose every searchMany waits for a compute turn first. */
function turnTaking(vectors: VectorOps, turns: Turns): BatchSearchTarget {
  return {
    dim: vectors.dim,
    count: vectors.count,
    searchMany: async (queries, k, options) => {
      await turns.next();
      return vectors.searchMany(queries, k, options);
    },
  };
}

/** Builds an HNSW index over the vectors, or loads the one cached for the same words and parameters. */
async function hnswFor(
  vectors: Float32Array,
  dim: number,
  count: number,
  cacheDir: string,
  log: (line: string) => void,
): Promise<HnswIndex> {
  const file = path.join(cacheDir, `hnsw-wink-${count}-M16-efc100.tdhn`);
  if (existsSync(file)) {
    try {
      const index = await HnswIndex.load(new Uint8Array(readFileSync(file)));
      if (index.count === count && index.dim === dim) return index;
      log(`cached HNSW index ${file} is for other data: rebuilding`);
    } catch (error) {
      log(
        `cached HNSW index ${file} is unreadable (${error instanceof Error ? error.message : String(error)}): rebuilding`,
      );
    }
  }
  const started = performance.now();
  let lastLog = 0;
  const index = await HnswIndex.build(vectors, dim, {
    M: 16,
    efConstruction: 100,
    seed: 1,
    onProgress: (done, total) => {
      if (done - lastLog >= total / 10 || done === total) {
        lastLog = done;
        log(`building HNSW index: ${done}/${total}`);
      }
    },
  });
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, index.save());
  log(
    `HNSW index over ${count} words built in ${((performance.now() - started) / 1000).toFixed(1)} s, cached in ${file}`,
  );
  return index;
}

/** Loads the data and builds the search structures. */
export async function createContext(engine: Engine, options: ContextOptions): Promise<ServerContext> {
  const log = options.log ?? (() => undefined);
  const cacheDir = options.cacheDir ?? path.join(REPO_ROOT, '.cache', 'server');
  let started = performance.now();
  const wink = await loadWinkEmbeddings({ limit: options.words });
  log(`word vectors: ${wink.words.length} x ${wink.dim} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const wordIndex = new Map<string, number>();
  wink.words.forEach((w, i) => {
    if (!wordIndex.has(w)) wordIndex.set(w, i);
  });
  const vectors = await VectorOps.create(engine, wink.vectors, wink.dim, { matmulMinQueries: MATMUL_MIN_QUERIES });
  const hnsw = await hnswFor(wink.vectors, wink.dim, wink.words.length, cacheDir, log);
  const turns = new Turns();
  const batches = new BatchEngine(turnTaking(vectors, turns), {
    maxBatchSize: queriesPerStep(vectors.count, vectors.dim),
    maxWaitMs: 2,
  });
  started = performance.now();
  const wordnet = await loadWordNet();
  const graph = CsrGraph.fromCsr(wordnet.rowPtr, wordnet.colIdx, wordnet.weights);
  log(
    `WordNet: ${wordnet.synsetIds.length} synsets, ${graph.edgeCount} relations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // The loader's objects (a string or array per synset) are dropped once packed (docs/decisions.md, issue 32).
  const synsets = new PackedWordNet(wordnet);
  return {
    engine,
    words: wink.words,
    wordIndex,
    dim: wink.dim,
    vectors,
    hnsw,
    batches,
    synsets,
    graph,
    turns,
    close: async () => {
      await batches.close();
      vectors.dispose();
      graph.release(engine);
    },
  };
}
