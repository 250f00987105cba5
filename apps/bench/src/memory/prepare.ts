// Makes (or checks) the memory suite's HNSW index caches in .cache/bench/ without running the suite:
//
//   node -C @tandem/source --import tsx apps/bench/src/memory/prepare.ts [--tandem] [--hnswlib]     (both when neither is named)
//
// tandem: loads the graph-only cache with the wink vectors (which checks it was built on them), converts an older
// full cache (.tdhn) to graph only, or builds it (minutes). hnswlib: loads its cache or
// builds it (minutes). gpu-pack.sh runs it with --tandem (the graph-only file is what travels); gpu-bench.sh's
// pseudo-suite `memory-indexes` runs it on the GPU machine, so the memory suite's own call only loads. Honours
// TANDEM_BENCH_MEMORY_WORDS like the suite. Exits 1 when a requested index cannot be made (hnswlib-node missing).
import { pathToFileURL } from 'node:url';
import { loadWinkEmbeddings } from '@tandem/datasets';
import { parseCommandLine } from '../command-line.ts';
import { progress } from '../report.ts';
import { hnswlibIndex, loadHnswlib } from './hnswlib.ts';
import { describeOrigin, tandemCacheNames, tandemIndex } from './ours.ts';

/** The suite's index parameters (suites/memory.ts uses the same). */
export const MEMORY_INDEX_PARAMS = { m: 16, efConstruction: 200, seed: 100 };

async function main(argv: readonly string[]): Promise<number> {
  const args = parseCommandLine(
    {
      command: 'node -C @tandem/source --import tsx apps/bench/src/memory/prepare.ts [--tandem] [--hnswlib]',
      summary: "Makes or checks the memory suite's HNSW index caches in .cache/bench/ (both when neither is named).",
    },
    {
      tandem: { type: 'boolean', help: "Tandem's graph-only cache" },
      hnswlib: { type: 'boolean', help: "hnswlib-node's cache" },
    },
    argv,
  );
  const both = !args.on('tandem') && !args.on('hnswlib');
  const limit = Number(process.env['TANDEM_BENCH_MEMORY_WORDS'] ?? 0);
  const start = performance.now();
  const words = await loadWinkEmbeddings({
    ...(limit > 0 ? { limit } : {}),
    onProgress: (d, t) => progress('wink JSON -> cache', d, t),
  });
  const count = words.words.length;
  console.log(`[prepare] wink: ${count} words x ${words.dim} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  let failed = false;
  if (both || args.on('tandem')) {
    const ours = await tandemIndex(words.vectors, words.dim, MEMORY_INDEX_PARAMS, undefined, (d, t) =>
      progress('tandem HNSW build', d, t),
    );
    console.log(
      `[prepare] ${describeOrigin('tandem', ours.origin)}; cache: .cache/bench/${tandemCacheNames(count, MEMORY_INDEX_PARAMS).graph}`,
    );
    ours.index.dispose();
  }
  if (both || args.on('hnswlib')) {
    const lib = loadHnswlib();
    if ('module' in lib) {
      const built = await hnswlibIndex(lib.module, words.vectors, words.dim, MEMORY_INDEX_PARAMS, (d, t) =>
        progress('hnswlib-node build', d, t),
      );
      console.log(`[prepare] ${describeOrigin('hnswlib-node', built.origin)}`);
    } else {
      console.error(`[prepare] ${lib.missing}`);
      failed = true;
    }
  }
  console.log(`[prepare] done in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return failed ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main(process.argv.slice(2));
