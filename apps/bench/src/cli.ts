// npm run bench -- <suite> [--gpu]: runs one suite (or all) and writes bench-results/<suite>.json and .md.
// Each suite is a file apps/bench/src/suites/<name>.ts whose default export runs it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { softwareGpuUnlessGpu } from './bench-env.ts';
import { writeSuite, type SuiteOptions, type SuiteResult } from './report.ts';

/** The suites, in the order `all` runs them. */
const SUITE_NAMES = ['scheduler', 'wasm', 'webgpu', 'rocm', 'memory', 'graph', 'dispatch', 'install'] as const;

/** A suite module: its default export runs the suite. */
interface SuiteModule {
  /** Runs the suite. */
  readonly default: (options: SuiteOptions) => Promise<SuiteResult>;
}

function suiteFile(name: string): string {
  return path.join(import.meta.dirname, 'suites', `${name}.ts`);
}

async function loadSuite(name: string): Promise<SuiteModule> {
  const loaded: SuiteModule = await import(suiteFile(name));
  return loaded;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options: SuiteOptions = { gpu: args.includes('--gpu') };
  softwareGpuUnlessGpu(options.gpu, process.env); // before any suite loads Dawn
  const name = args.find((a) => !a.startsWith('--')) ?? 'all';
  const available = SUITE_NAMES.filter((n) => existsSync(suiteFile(n)));
  const chosen = name === 'all' ? available : [name];
  for (const suite of chosen) {
    if (!available.some((n) => n === suite)) {
      console.error(`unknown suite '${suite}'; available: ${available.join(', ')}, all`);
      process.exitCode = 2;
      return;
    }
    console.log(`== ${suite} ==`);
    const module = await loadSuite(suite);
    await writeSuite(await module.default(options));
  }
}

await main();
