// Copies the latest bench results (bench-results/*.json that are suite results, and *.svg plots) into the demo's
// data/bench/ with an index.json, for results.html. No results: an empty index, and the page says so.
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseBenchSuite, type BenchIndex } from '../src/results/bench-format.ts';

/** Copies what bench-results/ (or $TANDEM_BENCH_OUT) holds into `outDir`; returns the index written. */
export async function copyBenchResults(resultsDir: string, outDir: string): Promise<BenchIndex> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const names = await readdir(resultsDir).catch(() => []);
  const suites: { file: string; suite: string; date: string }[] = [];
  const plots: string[] = [];
  for (const name of [...names].sort()) {
    const source = path.join(resultsDir, name);
    if (name.endsWith('.svg')) {
      await copyFile(source, path.join(outDir, name));
      plots.push(name);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(source, 'utf8'));
    } catch (error) {
      console.warn(`[demo] skipped ${source}: not JSON (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    const result = parseBenchSuite(parsed);
    if (!result.ok) continue; // traces and other files share the folder
    await copyFile(source, path.join(outDir, name));
    suites.push({ file: name, suite: result.suite.suite, date: result.suite.date });
  }
  const index: BenchIndex = { suites, plots };
  await writeFile(path.join(outDir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  return index;
}
