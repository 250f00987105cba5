// npm run bench -- <suite>: runs one suite (or all) and writes bench-results/<suite>.json and .md.
import { writeSuite, type SuiteResult } from './report.ts';
import { schedulerSuite } from './suites/scheduler.ts';
import { wasmSuite } from './suites/wasm.ts';

const SUITES: Readonly<Record<string, () => Promise<SuiteResult>>> = {
  scheduler: schedulerSuite,
  wasm: wasmSuite,
};

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'all';
  const chosen = name === 'all' ? Object.keys(SUITES) : [name];
  for (const suite of chosen) {
    const run = SUITES[suite];
    if (run === undefined) {
      console.error(`unknown suite '${suite}'; available: ${Object.keys(SUITES).join(', ')}, all`);
      process.exitCode = 2;
      return;
    }
    console.log(`== ${suite} ==`);
    await writeSuite(await run());
  }
}

await main();
