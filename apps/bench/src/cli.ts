// npm run bench -- <suite> [--gpu]: runs one suite (or all) and writes bench-results/<suite>.json and .md.
// Each suite is a file apps/bench/src/suites/<name>.ts whose default export runs it. --help lists suites and flags;
// an unknown flag or suite is an error (exit 2), never ignored.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { softwareGpuUnlessGpu } from './bench-env.ts';
import { parseCommandLine, refuseArgs } from './command-line.ts';
import { writeSuite, type SuiteOptions, type SuiteResult } from './report.ts';

/** The suites, in the order `all` runs them. */
const SUITE_NAMES = [
  'scheduler',
  'wasm',
  'webgpu',
  'rocm',
  'memory',
  'spreading',
  'graph',
  'dispatch',
  'warm-start',
  'install',
] as const;

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

const available = SUITE_NAMES.filter((n) => existsSync(suiteFile(n)));
const USAGE = {
  command: 'npm run bench -- [suite] [options]',
  summary: 'Runs one benchmark suite (or all) and writes bench-results/<suite>.json and .md.',
  positionals: [`suite: ${available.join(', ')} or all (default all)`],
};
const FLAGS = {
  gpu: { type: 'boolean', help: 'use the real GPU (default: a software GPU when there is none)' },
} as const;

async function main(): Promise<void> {
  const args = parseCommandLine(USAGE, FLAGS);
  if (args.positionals.length > 1) refuseArgs(`one suite at a time, got ${args.positionals.join(' ')}`, USAGE, FLAGS);
  const name = args.positionals[0] ?? 'all';
  if (name !== 'all' && !available.some((n) => n === name))
    refuseArgs(`unknown suite '${name}'; available: ${available.join(', ')}, all`, USAGE, FLAGS);
  const options: SuiteOptions = { gpu: args.on('gpu') };
  softwareGpuUnlessGpu(options.gpu, process.env); // before any suite loads Dawn
  for (const suite of name === 'all' ? available : [name]) {
    console.log(`== ${suite} ==`);
    const module = await loadSuite(suite);
    await writeSuite(await module.default(options));
  }
}

await main();
