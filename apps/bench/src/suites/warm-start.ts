// Warm start (issue 31): a new engine's first decisions with and without the profile a trained engine saved.
//  1. Oracle: an engine (no profile) times each dispatch case (dispatch/cases.ts) on every backend alone, in shuffled
//     rounds, each sample the median of a few calls after an untimed one; a case's time per backend is the median of
//     its rounds. After a call on a GPU the suite pauses as the dispatch suite does (a software GPU's threads spin on).
//  2. Training: the same engine runs the cases under auto for a few rounds, then exports its profile to a file.
// Every call's outputs are read back, as a caller using each result does (so the read-back rates are learned too).
//  3. New processes (warm-start/first-calls.ts), cold and warm alternating: the first FIRST_CALLS calls under auto
//     (the cases shuffled, repeated), and the time from createEngine() to the first call of the case with the
//     largest gap between backends served by its fastest backend.
// A pick is right when its backend's oracle time is within 5% of the fastest (the dispatch suite's rule); time lost
// is the picks' oracle time over the fastest's, less 1.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sampleStats, type Engine, type Strategy, type Tensor } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases, type DispatchCase } from '../dispatch/cases.ts';
import { shuffled } from '../order.ts';
import { progress, type Row, type SuiteOptions, type SuiteResult } from '../report.ts';
import {
  isDecisionsReport,
  isFirstFastReport,
  type DecisionsReport,
  type FirstFastReport,
} from '../warm-start/reports.ts';

const NOISE = 1.05;
const ORACLE_ROUNDS = 5;
/** A sample is the median of this many calls, or of as many as fit SAMPLE_MS (at least one). */
const CALLS_PER_SAMPLE = 3;
const SAMPLE_MS = 200;
const TRAIN_ROUNDS = 6;
/** First calls scored per new process, and the shorter prefix reported beside (the GPU machine's figure). */
const FIRST_CALLS = 100;
const FIRST_FEW = 20;
/** New processes per kind (cold, warm) for each measure. */
const PROCESSES = 3;
const SOFTWARE_GPU_PAUSE_MS = 100;
const GPU_PAUSE_MS = 20;

const run = promisify(execFile);
const CHILD = path.join(import.meta.dirname, '..', 'warm-start', 'first-calls.ts');

/** Runs first-calls.ts in a new Node process (this process's loader flags) and parses its JSON line. */
async function child(args: readonly string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [...process.execArgv, CHILD, ...args], {
    maxBuffer: 16 << 20,
    env: process.env,
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line);
}

/** Reads an output back (every call of this suite uses its results, as the new processes do) and frees it. */
async function read(out: Tensor): Promise<void> {
  await out.read();
  out.dispose();
}

/** Median ms of CALLS_PER_SAMPLE calls of `c` under `strategy` (fewer past SAMPLE_MS), after an untimed one. */
async function sample(engine: Engine, c: DispatchCase, strategy: Strategy): Promise<number> {
  for (const out of await engine.run(c.call, { strategy })) await read(out);
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < CALLS_PER_SAMPLE && (i === 0 || performance.now() - started < SAMPLE_MS); i++) {
    const t0 = performance.now();
    for (const out of await engine.run(c.call, { strategy })) await read(out);
    times.push(performance.now() - t0);
  }
  return sampleStats(times).median;
}

/** Share of right picks and time lost, over `calls`. */
function score(
  calls: DecisionsReport['calls'],
  oracle: ReadonlyMap<string, ReadonlyMap<string, number>>,
): { right: number; lost: number } {
  let right = 0;
  let picked = 0;
  let best = 0;
  for (const call of calls) {
    const times = oracle.get(call.case);
    const fastest = Math.min(...(times?.values() ?? []));
    const ms = times?.get(call.backend) ?? fastest;
    if (ms <= fastest * NOISE) right++;
    picked += ms;
    best += fastest;
  }
  return { right: right / Math.max(1, calls.length), lost: picked / Math.max(best, 1e-9) - 1 };
}

const percent = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The oracle's fastest backend of a case, and how many times faster than its slowest. */
function fastestOf(times: ReadonlyMap<string, number>): { fastest: string; gap: number } {
  const [fastest, ms] = [...times].reduce((a, b) => (b[1] < a[1] ? b : a), ['', Infinity]);
  return { fastest, gap: Math.max(...times.values()) / ms };
}

/** "case on backend (reason, N.Nx the fastest)" for each call whose pick was not right. */
function wrongPicks(
  calls: DecisionsReport['calls'],
  oracle: ReadonlyMap<string, ReadonlyMap<string, number>>,
): string[] {
  return calls.flatMap((call, i) => {
    const times = oracle.get(call.case);
    const ms = times?.get(call.backend);
    if (times === undefined || ms === undefined) return [];
    const fastest = Math.min(...times.values());
    return ms <= fastest * NOISE
      ? []
      : [`#${i + 1} ${call.case} on ${call.backend} (${call.reason}, ${(ms / fastest).toFixed(1)}x)`];
  });
}

/** The case cold processes picked wrong most often (else the one with the largest gap between backends). */
function deciderCase(
  oracle: ReadonlyMap<string, ReadonlyMap<string, number>>,
  cold: readonly DecisionsReport[],
): { name: string; fastest: string; why: string } {
  const wrong = new Map<string, number>();
  for (const report of cold)
    for (const call of report.calls) {
      const times = oracle.get(call.case);
      const ms = times?.get(call.backend);
      if (times !== undefined && ms !== undefined && ms > Math.min(...times.values()) * NOISE)
        wrong.set(call.case, (wrong.get(call.case) ?? 0) + 1);
    }
  const [worst, count] = [...wrong].reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0]);
  const times = oracle.get(worst);
  if (times !== undefined)
    return { name: worst, fastest: fastestOf(times).fastest, why: `cold picked wrong ${count} times` };
  const [name, gapped] = [...oracle].reduce((a, b) => (fastestOf(b[1]).gap > fastestOf(a[1]).gap ? b : a));
  const { fastest, gap } = fastestOf(gapped);
  return { name, fastest, why: `no cold pick was wrong; the largest gap, ${gap.toFixed(1)}x` };
}

/** Runs the suite. */
export default async function warmStartSuite(options: SuiteOptions): Promise<SuiteResult> {
  if (!options.gpu && process.env['TANDEM_WEBGPU'] === undefined) process.env['TANDEM_WEBGPU'] = 'swiftshader';
  const pauseMs = options.gpu ? GPU_PAUSE_MS : SOFTWARE_GPU_PAUSE_MS;
  const engine = await createEngine({ profile: false });
  const kinds = new Map(engine.backends().map((b) => [b.name, b.kind] as const));
  const backends = engine
    .backends()
    .filter((b) => b.available && b.name !== 'reference')
    .map((b) => b.name);
  const cases = dispatchCases(engine);

  // 1. The oracle.
  const samples = new Map<string, Map<string, number[]>>();
  let step = 0;
  for (let round = 0; round < ORACLE_ROUNDS; round++)
    for (const [i, c] of shuffled(cases, 900 + round).entries())
      for (const name of shuffled(backends, 1000 * round + i)) {
        progress('oracle', ++step, ORACLE_ROUNDS * cases.length * backends.length);
        const ms = await sample(engine, c, { only: name }).catch(() => undefined); // unsupported: left out
        if (kinds.get(name) === 'gpu') await new Promise((resolve) => setTimeout(resolve, pauseMs));
        if (ms === undefined) continue;
        const byBackend = samples.get(c.name) ?? new Map<string, number[]>();
        byBackend.set(name, [...(byBackend.get(name) ?? []), ms]);
        samples.set(c.name, byBackend);
      }
  const oracle = new Map(
    [...samples].map(([name, byBackend]) => [
      name,
      new Map([...byBackend].map(([b, times]) => [b, sampleStats(times).median] as const)),
    ]),
  );

  // 2. Training, then the profile.
  step = 0;
  for (let round = 0; round < TRAIN_ROUNDS; round++)
    for (const c of shuffled(cases, 700 + round)) {
      progress('training', ++step, TRAIN_ROUNDS * cases.length);
      for (let i = 0; i < 3; i++) for (const out of await engine.run(c.call)) await read(out);
    }
  const profileFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'tandem-warm-start-')), 'profile.json');
  const profile = engine.profile.export();
  await writeFile(profileFile, JSON.stringify(profile));
  await engine.dispose();

  // 3. New processes, cold and warm alternating: the first calls, then (for the case cold processes got wrong most
  // often, else the one with the largest gap between backends) the time to its first call on its fastest backend.
  const decisions: Record<'cold' | 'warm', DecisionsReport[]> = { cold: [], warm: [] };
  const firstFast: Record<'cold' | 'warm', FirstFastReport[]> = { cold: [], warm: [] };
  const fileOf = (kind: 'cold' | 'warm'): string[] => (kind === 'warm' ? [profileFile] : []);
  for (let i = 0; i < PROCESSES; i++)
    for (const kind of ['cold', 'warm'] as const) {
      progress('first calls', 2 * i + (kind === 'warm' ? 2 : 1), 2 * PROCESSES);
      const report = await child(['decisions', String(FIRST_CALLS), ...fileOf(kind)]);
      if (!isDecisionsReport(report) || report.warm !== (kind === 'warm'))
        throw new Error(`a ${kind} decisions run printed ${JSON.stringify(report).slice(0, 200)}`);
      decisions[kind].push(report);
    }
  const decider = deciderCase(oracle, decisions.cold);
  for (let i = 0; i < PROCESSES; i++)
    for (const kind of ['cold', 'warm'] as const) {
      progress('first fast call', 2 * i + (kind === 'warm' ? 2 : 1), 2 * PROCESSES);
      const fast = await child(['first-fast', decider.name, decider.fastest, ...fileOf(kind)]);
      if (!isFirstFastReport(fast) || fast.warm !== (kind === 'warm'))
        throw new Error(`a ${kind} first-fast run printed ${JSON.stringify(fast).slice(0, 200)}`);
      firstFast[kind].push(fast);
    }

  const rows: Row[] = [];
  for (const kind of ['cold', 'warm'] as const) {
    const all = decisions[kind].map((d) => score(d.calls, oracle));
    const few = decisions[kind].map((d) => score(d.calls.slice(0, FIRST_FEW), oracle));
    const median = (xs: number[]): number => sampleStats(xs).median;
    rows.push({
      start: kind,
      processes: decisions[kind].length,
      [`right, first ${FIRST_CALLS} (median)`]: percent(median(all.map((s) => s.right))),
      [`time lost, first ${FIRST_CALLS} (median)`]: percent(median(all.map((s) => s.lost))),
      [`right, first ${FIRST_FEW} (median)`]: percent(median(few.map((s) => s.right))),
      [`time lost, first ${FIRST_FEW} (median)`]: percent(median(few.map((s) => s.lost))),
      [`first ${FIRST_FEW} calls, ms (median)`]: median(
        decisions[kind].map((d) => d.calls.slice(0, FIRST_FEW).reduce((sum, c) => sum + c.ms, 0)),
      ),
      [`first ${FIRST_CALLS} calls, ms (median)`]: median(
        decisions[kind].map((d) => d.calls.reduce((sum, c) => sum + c.ms, 0)),
      ),
      'createEngine ms (median)': median(decisions[kind].map((d) => d.startMs)),
      [`calls until ${decider.name} on ${decider.fastest} (median)`]: median(firstFast[kind].map((f) => f.calls)),
      'ms from createEngine() to that call (median)': median(firstFast[kind].map((f) => f.ms)),
    });
  }
  const cold = rows[0];
  const warm = rows[1];
  const verdicts = [
    `oracle: ${oracle.size} cases x ${backends.join(', ')}; profile: ${profile.costs.length} op/backend series`,
    `first ${FIRST_CALLS} decisions right: cold ${cold?.[`right, first ${FIRST_CALLS} (median)`]}, warm ${warm?.[`right, first ${FIRST_CALLS} (median)`]} (target: warm >= 98%)`,
    `${decider.name} (fastest ${decider.fastest}; ${decider.why}): first call on it after ${cold?.['ms from createEngine() to that call (median)']} ms cold, ${warm?.['ms from createEngine() to that call (median)']} ms warm`,
    ...(['cold', 'warm'] as const).map(
      (kind) =>
        `${kind} wrong picks (every process): ${
          decisions[kind].flatMap((d) => wrongPicks(d.calls, oracle)).join('; ') || 'none'
        }`,
    ),
    ...[...oracle].map(
      ([name, times]) => `oracle ${name}: ${[...times].map(([b, ms]) => `${b} ${ms.toFixed(3)} ms`).join(', ')}`,
    ),
  ];
  return { suite: 'warm-start', rows, verdicts };
}
