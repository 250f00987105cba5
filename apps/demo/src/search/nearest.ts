// One nearest-word query answered twice: brute force through the engine (VectorOps) and by the HNSW graph.
import type { Engine, OpEvent, Strategy } from '@tandem/core';
import type { SearchHit, VectorOps } from '@tandem/memory';
import type { DemoWords } from '../data/load-data.ts';
import { queryVector, type QueryTerm } from './query.ts';
import { reasonText } from './reason-text.ts';

/** Label of the demo's background workload ops (left out of a query's own events). */
export const WORKLOAD_LABEL = 'demo.workload';

/** A ranked word. */
export interface WordHit {
  /** The word. */
  readonly word: string;
  /** Cosine similarity to the query. */
  readonly score: number;
}

/** One method's answer. */
export interface NearestAnswer {
  /** The k nearest words, the query's own words left out. */
  readonly hits: readonly WordHit[];
  /** Wall time of the search, ms. */
  readonly ms: number;
  /** Where it ran and why, e.g. "cosineSimilarity on webgpu (...)". */
  readonly ranOn: readonly string[];
}

/** Both answers to one query. */
export interface NearestComparison {
  /** Brute force through the engine: exact. */
  readonly brute: NearestAnswer;
  /** HNSW graph search (approximate), WebAssembly in the engine worker. */
  readonly hnsw: NearestAnswer;
  /** Share of brute force's words that HNSW also found. */
  readonly overlap: number;
}

/** The k best hits that are not query words, as words. */
function toWords(
  hits: readonly SearchHit[],
  words: readonly string[],
  exclude: ReadonlySet<string>,
  k: number,
): WordHit[] {
  const out: WordHit[] = [];
  for (const hit of hits) {
    const word = words[hit.index];
    if (word === undefined || exclude.has(word)) continue;
    out.push({ word, score: hit.score });
    if (out.length === k) break;
  }
  return out;
}

/** "op on backend (reason)" for each engine attempt, fallbacks included. */
function describeEvents(events: readonly OpEvent[]): string[] {
  return events.map(
    (e) =>
      `${e.op} on ${e.backend}${e.attempt > 1 ? ` (fallback #${e.attempt - 1})` : ''}: ${reasonText(e.reason)}${e.ok ? '' : ` — failed: ${e.error ?? 'unknown'}`}`,
  );
}

/** Answers `terms` by brute force (strategy as given) and by HNSW (ef), k results each. */
export async function compareNearest(
  engine: Engine,
  ops: VectorOps,
  data: DemoWords,
  terms: readonly QueryTerm[],
  k: number,
  strategy: Strategy,
  ef: number,
): Promise<NearestComparison> {
  const query = queryVector(terms, data.rowOf, data.vectors, data.dim);
  const exclude = new Set(terms.map((t) => t.word));
  const fetchK = Math.min(data.words.length, k + exclude.size);

  const events: OpEvent[] = [];
  const unsubscribe = engine.telemetry.subscribe((event) => {
    if (event.label !== WORKLOAD_LABEL) events.push(event);
  });
  let bruteHits: SearchHit[];
  const bruteStart = performance.now();
  try {
    bruteHits = await ops.search(query, fetchK, { strategy });
  } finally {
    unsubscribe();
  }
  const bruteMs = performance.now() - bruteStart;

  const hnswStart = performance.now();
  const hnswHits = data.hnsw.search(query, fetchK, { ef: Math.max(ef, fetchK) });
  const hnswMs = performance.now() - hnswStart;

  const brute = toWords(bruteHits, data.words, exclude, k);
  const hnsw = toWords(hnswHits, data.words, exclude, k);
  const found = new Set(hnsw.map((h) => h.word));
  return {
    brute: { hits: brute, ms: bruteMs, ranOn: describeEvents(events) },
    hnsw: {
      hits: hnsw,
      ms: hnswMs,
      ranOn: [`HNSW graph search (ef ${Math.max(ef, fetchK)}) in WebAssembly, in the page's engine worker`],
    },
    overlap: brute.length === 0 ? 1 : brute.filter((h) => found.has(h.word)).length / brute.length,
  };
}
