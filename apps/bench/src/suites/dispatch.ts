// Dispatch accuracy (issue 9): a mixed workload over every op at sizes from tiny to large. Each round runs the
// cases in shuffled order, and each case under `auto` and on every backend alone (`{ only }`), interleaved, so
// all see the same conditions (each timed call follows an untimed one of the same strategy; GPU-only calls go
// first, with a pause after them, and auto and the CPU-only calls alternate their order by round). The oracle is each case's median time per backend; each `auto` decision is
// compared with it: the share that picked the fastest backend (within 5%, the oracle's own noise; the strict
// share is reported too), the time lost to wrong ones, and per case `auto` against the best single backend.
// Training rounds (not counted) come first: the scheduler learns as it would from a user's first calls.
import { createRng, monotonicClock, type Engine, type Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases, type DispatchCase } from '../dispatch/cases.ts';
import { progress, type Row, type SuiteOptions, type SuiteResult } from '../report.ts';
import { stats } from '../stats.ts';

/** A pick counts as right when its oracle time is within this factor of the fastest backend's. */
const NOISE = 1.05;
/** Shuffled rounds of the workload under auto: training, then measured. */
const TRAIN_ROUNDS = 4;
const MEASURED_ROUNDS = 6;

async function timeCall(engine: Engine, c: DispatchCase, strategy: Parameters<Engine['run']>[1]): Promise<{ ms: number; backend: string }> {
  const t0 = monotonicClock();
  const outputs = await engine.run(c.call, strategy);
  await outputs[0]?.read(); // the result on the host, as a caller would use it
  const ms = monotonicClock() - t0;
  for (const o of outputs) o.dispose();
  const last = engine.telemetry.opEvents().at(-1);
  return { ms, backend: last?.backend ?? '' };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i + 1);
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}

/** Runs the suite. */
export default async function dispatchSuite(options: SuiteOptions): Promise<SuiteResult> {
  if (!options.gpu && process.env['TANDEM_WEBGPU'] === undefined) process.env['TANDEM_WEBGPU'] = 'swiftshader';
  const engine = await createEngine();
  const backends = engine.backends().filter((b) => b.available && b.name !== 'reference').map((b) => b.name);
  // GPU-only strategies run first in each case, then a pause, then auto and the CPU-only ones in an order that
  // alternates by round: a software GPU (SwiftShader) keeps the CPU busy for a while after a call, and on a
  // 2-core machine that must not be charged to whichever strategy happens to run next.
  const kinds = new Map(engine.backends().map((b) => [b.name, b.kind] as const));
  const gpuFirst: Strategy[] = backends.filter((b) => kinds.get(b) === 'gpu').map((only) => ({ only }));
  const cpuSide: Strategy[] = ['auto', ...backends.filter((b) => kinds.get(b) !== 'gpu').map((only) => ({ only }))];
  const orderFor = (round: number): Strategy[] => [...gpuFirst, ...(round % 2 === 0 ? cpuSide : [...cpuSide].reverse())];
  const label = (s: Strategy): string => (typeof s === 'object' ? s.only : s);
  const cases = dispatchCases(engine);
  // samples.get(case).get('auto' | backend name) = times; picks.get(case) = auto's backends, measured rounds only.
  const samples = new Map<DispatchCase, Map<string, number[]>>();
  const picks = new Map<DispatchCase, string[]>();
  const unsupported = new Set<string>();
  const rounds = TRAIN_ROUNDS + MEASURED_ROUNDS;
  let step = 0;
  for (let round = 0; round < rounds; round++) {
    for (const c of shuffled(cases, 100 + round)) {
      progress('rounds', ++step, rounds * cases.length);
      for (const strategy of orderFor(round)) {
        const key = `${c.name}|${label(strategy)}`;
        if (unsupported.has(key)) continue;
        let timed: { ms: number; backend: string };
        try {
          // An untimed call first: what ran before (another case, a software GPU's threads winding down after a
          // WebGPU call) must not be charged to this strategy.
          if (round >= TRAIN_ROUNDS) await timeCall(engine, c, strategy);
          timed = await timeCall(engine, c, strategy);
        } catch {
          unsupported.add(key); // this backend cannot take this case (unsupported or too large)
          continue;
        }
        if (typeof strategy === 'object' && kinds.get(strategy.only) === 'gpu') await new Promise((resolve) => setTimeout(resolve, 20));
        if (round < TRAIN_ROUNDS) continue;
        const perCase = samples.get(c) ?? new Map<string, number[]>();
        samples.set(c, perCase);
        const list = perCase.get(label(strategy)) ?? [];
        list.push(timed.ms);
        perCase.set(label(strategy), list);
        if (strategy === 'auto') picks.set(c, [...(picks.get(c) ?? []), timed.backend]);
      }
    }
  }
  await engine.dispose();

  const rows: Row[] = [];
  let right = 0;
  let strictlyRight = 0;
  let decisions = 0;
  let oracleMs = 0;
  let lostMs = 0;
  let within = 0;
  let worstRatio = Infinity;
  let worstCase = '';
  for (const c of cases) {
    const perCase = samples.get(c) ?? new Map<string, number[]>();
    const medians = new Map(backends.filter((b) => perCase.has(b)).map((b) => [b, stats(perCase.get(b) ?? []).median] as const));
    const [bestName, bestMs] = [...medians].reduce((a, b) => (b[1] < a[1] ? b : a), ['', Infinity]);
    for (const backend of picks.get(c) ?? []) {
      const chosen = medians.get(backend);
      if (chosen === undefined) continue;
      decisions++;
      if (chosen <= bestMs * NOISE) right++;
      if (chosen <= bestMs) strictlyRight++;
      oracleMs += bestMs;
      lostMs += chosen - bestMs;
    }
    const autoMs = stats(perCase.get('auto') ?? [NaN]).median;
    const ratio = bestMs / autoMs; // >= 1: auto as fast as the best single backend
    if (ratio >= 0.97) within++;
    if (ratio < worstRatio) {
      worstRatio = ratio;
      worstCase = c.name;
    }
    const row: Record<string, string | number> = { case: c.name };
    for (const name of backends) row[`${name}Ms`] = medians.get(name) ?? 'n/a';
    row['fastest'] = bestName;
    row['autoMs'] = autoMs;
    row['autoPicked'] = [...new Set(picks.get(c) ?? [])].join('/');
    row['autoVsBest'] = ratio;
    rows.push(row);
  }
  const accuracy = right / Math.max(1, decisions);
  const lostShare = lostMs / Math.max(1e-9, oracleMs);
  const verdicts = [
    `backends: ${backends.join(', ')} (the reference is a fallback only, not a candidate); ${cases.length} cases; per measured round every case runs under auto and on each backend alone, interleaved, in shuffled order; ${MEASURED_ROUNDS} measured rounds after ${TRAIN_ROUNDS} training rounds = ${decisions} decisions`,
    `dispatch accuracy ${(100 * accuracy).toFixed(1)}% picked the fastest backend within ${Math.round((NOISE - 1) * 100)}% (strict: ${((100 * strictlyRight) / Math.max(1, decisions)).toFixed(1)}%) (target >= 98%) -> ${accuracy >= 0.98 ? 'MET' : 'MISSED'}`,
    `time lost to wrong decisions ${(100 * lostShare).toFixed(2)}% of the oracle's total (target <= 2%) -> ${lostShare <= 0.02 ? 'MET' : 'MISSED'}`,
    `auto >= 0.97x the best single backend in ${within}/${rows.length} cases; worst ${worstRatio.toFixed(2)}x (${worstCase}) (target: every case) -> ${within === rows.length ? 'MET' : 'MISSED'} (medians of whole calls including the read-back, on a shared machine)`,
  ];
  return { suite: 'dispatch', rows, verdicts };
}
