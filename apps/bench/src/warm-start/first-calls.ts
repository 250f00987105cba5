// A new engine's first calls, in a process of its own (the warm-start suite starts one per sample): cold (no profile)
// or warm (the profile a trained engine exported, imported right after createEngine()). Prints one JSON line.
//   decisions <calls> [profile file]: the dispatch cases in a seeded shuffled order, repeated, one call each under
//     auto, its outputs read: where each ran and why.
//   first-fast <case> <backend> [profile file]: that case called until a call is served by <backend>: how many calls
//     and the ms from createEngine() to the end of that call (building the cases' tensors left out).
// --help prints the usage; an unknown flag, mode or argument count is an error (exit 2).
import { readFileSync } from 'node:fs';
import { createEngine, type Tensor } from 'tandem';
import { numberArg, parseCommandLine, refuseArgs } from '../command-line.ts';
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

const USAGE = {
  command: 'node -C @tandem/source --import tsx apps/bench/src/warm-start/first-calls.ts MODE ARGS...',
  summary: "A new engine's first calls, cold or warm (with a profile): one JSON line (the warm-start suite's child).",
  positionals: [
    'decisions <calls> [profile file]            the dispatch cases shuffled, one call each under auto',
    'first-fast <case> <backend> [profile file]  that case until <backend> serves a call',
  ],
};
/** Each mode's fewest and most positional arguments, the mode included. */
const ARITY: Readonly<Record<string, readonly [number, number]>> = { decisions: [2, 3], 'first-fast': [3, 4] };

async function main(): Promise<void> {
  const args = parseCommandLine(USAGE, {});
  const [mode, arg1, arg2, arg3] = args.positionals;
  const arity = mode === undefined ? undefined : ARITY[mode];
  if (arity === undefined) refuseArgs(mode === undefined ? 'no mode given' : `unknown mode '${mode}'`, USAGE, {});
  const given = args.positionals.length;
  if (given < arity[0] || given > arity[1])
    refuseArgs(`${mode}: ${given - 1} arguments, expected ${arity[0] - 1} to ${arity[1] - 1}`, USAGE, {});
  if (mode === 'decisions') numberArg('decisions <calls>', arg1, 0, 1, 1_000_000);
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
  }
  await engine.dispose();
}

await main();
