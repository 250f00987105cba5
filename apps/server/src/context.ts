// Everything the API serves from, loaded once at start: the engine, the word vectors (brute force and HNSW),
// the batch engine, and WordNet as a graph for spreading activation.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '@tandem/core';
import { findSynsets, loadWinkEmbeddings, loadWordNet, type WordNetGraph } from '@tandem/datasets';
import { BatchEngine, CsrGraph, HnswIndex, VectorOps } from '@tandem/memory';

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
  /** WordNet synsets and relations. */
  readonly wordnet: WordNetGraph;
  /** WordNet as a CSR graph on the engine. */
  readonly graph: CsrGraph;
  /** Finds WordNet synsets of a lemma. */
  readonly synsetsOf: (lemma: string) => number[];
  /** Synset id -> node. */
  readonly synsetIndex: ReadonlyMap<string, number>;
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

/** Builds an HNSW index over the vectors, or loads the one cached for the same words and parameters. */
async function hnswFor(vectors: Float32Array, dim: number, count: number, cacheDir: string, log: (line: string) => void): Promise<HnswIndex> {
  const file = path.join(cacheDir, `hnsw-wink-${count}-M16-efc100.tdhn`);
  if (existsSync(file)) {
    try {
      const index = await HnswIndex.load(new Uint8Array(readFileSync(file)));
      if (index.count === count && index.dim === dim) return index;
      log(`cached HNSW index ${file} is for other data: rebuilding`);
    } catch (error) {
      log(`cached HNSW index ${file} is unreadable (${error instanceof Error ? error.message : String(error)}): rebuilding`);
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
  log(`HNSW index over ${count} words built in ${((performance.now() - started) / 1000).toFixed(1)} s, cached in ${file}`);
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
  const vectors = await VectorOps.create(engine, wink.vectors, wink.dim);
  const hnsw = await hnswFor(wink.vectors, wink.dim, wink.words.length, cacheDir, log);
  const batches = new BatchEngine(vectors, { maxBatchSize: 64, maxWaitMs: 2 });
  started = performance.now();
  const wordnet = await loadWordNet();
  const graph = CsrGraph.fromCsr(wordnet.rowPtr, wordnet.colIdx, wordnet.weights);
  log(`WordNet: ${wordnet.synsetIds.length} synsets, ${graph.edgeCount} relations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const synsetIndex = new Map(wordnet.synsetIds.map((id, i) => [id, i] as const));
  return {
    engine,
    words: wink.words,
    wordIndex,
    dim: wink.dim,
    vectors,
    hnsw,
    batches,
    wordnet,
    graph,
    synsetIndex,
    synsetsOf: (lemma: string) => findSynsets(wordnet, lemma),
    close: async () => {
      await batches.close();
      vectors.dispose();
      graph.release(engine);
    },
  };
}
