// A new engine's first calls, in a process of its own (the warm-start suite starts one per sample): cold (no profile)
// or warm (the profile a trained engine exported, imported right after createEngine()). Prints one JSON line.
//   decisions <calls> [profile file]: the dispatch cases in a seeded shuffled order, repeated, one call each under
//     auto, its outputs read: where each ran and why.
//   first-fast <case> <backend> [profile file]: that case called until a call is served by <backend>: how many calls
//     and the ms from createEngine() to the end of that call (building the cases' tensors left out).
import { readFileSync } from 'node:fs';
import { createEngine, type Tensor } from 'tandem';
import { dispatchCases } from '../dispatch/cases.ts';
import { shuffled } from '../order.ts';
import type { DecisionsReport, FirstCall, FirstFastReport } from './reports.ts';

/** Reads an output back, as a caller who uses every result does (the oracle times calls the same way), and frees it. */
async function read(out: Tensor): Promise<void> {
  await out.read();
  out.dispose();
}

/** Calls of the case at most, in the first-fast mode. */
const FIRST_FAST_LIMIT = 200;

async function main(): Promise<void> {
  const [mode, arg1, arg2, arg3] = process.argv.slice(2);
  const profileFile = mode === 'decisions' ? arg2 : arg3;
  const started = performance.now();
  const engine = await createEngine({ profile: false }); // the user's saved profile never takes part
  const imported = profileFile === undefined ? undefined : engine.profile.import(readFileSync(profileFile, 'utf8'));
  if (imported !== undefined && !imported.used) throw new Error(`the profile was not used: ${imported.reason}`);
  const startMs = performance.now() - started;
  const beforeCases = performance.now();
  const cases = dispatchCases(engine);
  const casesMs = performance.now() - beforeCases;
  let last = { backend: '', reason: '' };
  engine.telemetry.subscribe((e) => {
    if (e.ok) last = { backend: e.backend, reason: e.reason.kind };
  });
  if (mode === 'decisions') {
    const count = Number(arg1);
    const calls: FirstCall[] = [];
    for (let round = 0; calls.length < count; round++)
      for (const c of shuffled(cases, 500 + round)) {
        if (calls.length >= count) break;
        const t0 = performance.now();
        for (const out of await engine.run(c.call)) await read(out);
        calls.push({ case: c.name, ...last, ms: performance.now() - t0 });
      }
    const report: DecisionsReport = { startMs, warm: imported !== undefined, calls };
    console.log(JSON.stringify(report));
  } else if (mode === 'first-fast') {
    const c = cases.find((x) => x.name === arg1);
    if (c === undefined) throw new Error(`no dispatch case '${arg1}'`);
    let calls = 0;
    let ms = 0;
    for (let i = 1; i <= FIRST_FAST_LIMIT && calls === 0; i++) {
      for (const out of await engine.run(c.call)) await read(out);
      if (last.backend === arg2) [calls, ms] = [i, performance.now() - started - casesMs];
    }
    const report: FirstFastReport = { startMs, warm: imported !== undefined, calls, ms };
    console.log(JSON.stringify(report));
  } else
    throw new Error(`unknown mode '${mode}': decisions <calls> [profile] or first-fast <case> <backend> [profile]`);
  await engine.dispose();
}

await main();
