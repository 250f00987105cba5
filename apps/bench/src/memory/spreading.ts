// Spreading activation over WordNet per backend: the marginal time of one hop, (T(11 hops) - T(1 hop)) / 10,
// which removes the per-call upload of the sources and the readback; plus agreement with the reference backend.
import { sampleStats } from '@tandem/core';
import type { Engine } from '@tandem/core';
import { findSynsets, type WordNetGraph } from '@tandem/datasets';
import { CsrGraph, spreadActivation } from '@tandem/memory';
import type { Row } from '../report.ts';

const SOURCE_WORDS = ['dog', 'music', 'money', 'run', 'happy'];
const DECAY = 0.8;
const THRESHOLD = 0.01;

/** Per-backend rows and per-hop medians. */
export interface SpreadingResult {
  /** Rows for the table. */
  readonly rows: Row[];
  /** Median ms per hop per backend. */
  readonly perHop: ReadonlyMap<string, number>;
}

/** Times spreading from a few words' synsets on every available backend. */
export async function spreadingPerBackend(
  engine: Engine,
  wordnet: WordNetGraph,
  log: (line: string) => void,
): Promise<SpreadingResult> {
  const graph = CsrGraph.fromCsr(wordnet.rowPtr, wordnet.colIdx, wordnet.weights);
  const sources = SOURCE_WORDS.flatMap((w) => findSynsets(wordnet, w)).map((node) => ({ node, activation: 1 }));
  const rows: Row[] = [];
  const perHop = new Map<string, number>();
  let reference: Float32Array | undefined;
  const backends = engine.backends().filter((b) => b.available);
  backends.sort((a, b) => (a.name === 'reference' ? -1 : b.name === 'reference' ? 1 : 0));
  for (const backend of backends) {
    const strategy = { only: backend.name };
    const run = (maxHops: number): Promise<Float32Array> =>
      spreadActivation(engine, graph, { sources, decay: DECAY, threshold: THRESHOLD, maxHops, strategy });
    try {
      const result = await run(10);
      const reps = backend.name === 'reference' ? 3 : 7;
      const one: number[] = [];
      const eleven: number[] = [];
      for (let r = 0; r < reps; r++) {
        let start = performance.now();
        await run(1);
        one.push(performance.now() - start);
        start = performance.now();
        await run(11);
        eleven.push(performance.now() - start);
      }
      const hopMs = Math.max(0, (sampleStats(eleven).median - sampleStats(one).median) / 10);
      if (backend.name === 'reference') reference = result;
      const diff = reference === undefined ? undefined : maxRelativeDiff(result, reference);
      perHop.set(backend.name, hopMs);
      log(`spreading over WordNet on ${backend.name}: ${hopMs.toFixed(3)} ms per hop`);
      rows.push({
        section: 'spreading activation',
        backend: backend.name,
        nodes: graph.nodeCount,
        edges: graph.edgeCount,
        sources: sources.length,
        msPerHop: hopMs,
        ms11Hops: sampleStats(eleven).median,
        maxRelDiffVsReference: diff ?? 'n/a',
        active: countActive(result),
      });
    } catch (error) {
      log(`spreading on ${backend.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      rows.push({
        section: 'spreading activation',
        backend: backend.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { rows, perHop };
}

function maxRelativeDiff(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    worst = Math.max(worst, Math.abs(x - y) / Math.max(Math.abs(y), 1e-6));
  }
  return worst;
}

function countActive(a: Float32Array): number {
  let n = 0;
  for (const v of a) if (v >= THRESHOLD) n++;
  return n;
}
