// Dispatch accuracy (issue 9): a mixed workload over every op at sizes from tiny to large. Each round runs the
// cases in shuffled order, and each case under `auto` and on every backend alone (`{ only }`), back to back, so
// all see the same conditions: auto sits between the GPU-only and the CPU-only calls, and the order flips every
// round (GPU, auto, CPU / CPU, auto, GPU); each timed call follows an untimed one of the same strategy, and every
// GPU-only call is followed by a pause (a long one on a software GPU, whose worker threads keep spinning after a
// call). A sample is the median of a block of calls of about BLOCK_MS (one call of a tiny op is mostly noise). The oracle is each case's median time per backend; each `auto` decision is compared with it: the share
// that picked the fastest backend (within 5%, the oracle's own noise; the strict share is reported too), the time
// lost to wrong ones, and per case `auto` against the best single backend as the median of per-round paired
// ratios (the machine's speed drifts over seconds: a ratio of medians taken apart would measure the drift).
// Training rounds (not counted) come first: the scheduler learns as it would from a user's first calls.
import { createRng, monotonicClock, type Engine, type Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { caseFamily, inputElements } from '../dispatch/case-size.ts';
import { dispatchCases, type DispatchCase } from '../dispatch/cases.ts';
import { AUTO_TARGET, dispatchPlots } from '../dispatch/plots.ts';
import { progress, type Row, type SuiteOptions, type SuiteResult } from '../report.ts';
import { stats } from '../stats.ts';

/** A pick counts as right when its oracle time is within this factor of the fastest backend's. */
const NOISE = 1.05;
/** Shuffled rounds of the workload under auto: training, then measured. */
const TRAIN_ROUNDS = 4;
const MEASURED_ROUNDS = 12;
/** Pause after a GPU-only call on a software GPU (SwiftShader's threads wind down) and on a real one, ms. */
const SOFTWARE_GPU_PAUSE_MS = 100;
const GPU_PAUSE_MS = 20;
/** Each measured sample is the median of a block of calls lasting about this long (tiny ops: one call is noise). */
const BLOCK_MS = 1;
const MAX_BLOCK_CALLS = 16;

/** The median time of `calls` calls in a row, and the backend of the last. */
async function timeBlock(engine: Engine, c: DispatchCase, strategy: Strategy, calls: number): Promise<{ ms: number; backend: string }> {
  const times: number[] = [];
  let backend = '';
  for (let i = 0; i < calls; i++) {
    const timed = await timeCall(engine, c, strategy);
    times.push(timed.ms);
    backend = timed.backend;
  }
  return { ms: stats(times).median, backend };
}

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
  // auto sits between the GPU-only and the CPU-only calls, and the order flips every round, so auto is timed back
  // to back with every single backend, before it in one round and after it in the next.
  const kinds = new Map(engine.backends().map((b) => [b.name, b.kind] as const));
  const gpuSide: Strategy[] = backends.filter((b) => kinds.get(b) === 'gpu').map((only) => ({ only }));
  const cpuSide: Strategy[] = backends.filter((b) => kinds.get(b) !== 'gpu').map((only) => ({ only }));
  const orderFor = (round: number): Strategy[] => (round % 2 === 0 ? [...gpuSide, 'auto', ...cpuSide] : [...cpuSide, 'auto', ...gpuSide]);
  const label = (s: Strategy): string => (typeof s === 'object' ? s.only : s);
  const gpuPauseMs = options.gpu ? GPU_PAUSE_MS : SOFTWARE_GPU_PAUSE_MS;
  const cases = dispatchCases(engine);
  // perRound.get(case)[measured round].get('auto' | backend name) = ms; picks.get(case) = auto's backends.
  const perRound = new Map<DispatchCase, Array<Map<string, number>>>();
  const picks = new Map<DispatchCase, string[]>();
  // Calls per measured sample, from the fastest time seen in training: blocks of about BLOCK_MS.
  const fastestTraining = new Map<DispatchCase, number>();
  const blockCalls = (c: DispatchCase): number => Math.min(MAX_BLOCK_CALLS, Math.max(1, Math.ceil(BLOCK_MS / (fastestTraining.get(c) ?? BLOCK_MS))));
  const unsupported = new Set<string>();
  const rounds = TRAIN_ROUNDS + MEASURED_ROUNDS;
  let step = 0;
  for (let round = 0; round < rounds; round++) {
    const measured = round >= TRAIN_ROUNDS;
    for (const c of shuffled(cases, 100 + round)) {
      progress('rounds', ++step, rounds * cases.length);
      const times = new Map<string, number>();
      for (const strategy of orderFor(round)) {
        const key = `${c.name}|${label(strategy)}`;
        if (unsupported.has(key)) continue;
        let timed: { ms: number; backend: string };
        try {
          // An untimed call first: what ran before (another case) must not be charged to this strategy.
          if (measured) await timeCall(engine, c, strategy);
          timed = measured ? await timeBlock(engine, c, strategy, blockCalls(c)) : await timeCall(engine, c, strategy);
        } catch {
          unsupported.add(key); // this backend cannot take this case (unsupported or too large)
          continue;
        }
        const onGpu = typeof strategy === 'object' ? kinds.get(strategy.only) === 'gpu' : kinds.get(timed.backend) === 'gpu';
        if (onGpu) await new Promise((resolve) => setTimeout(resolve, measured ? gpuPauseMs : GPU_PAUSE_MS));
        if (!measured) {
          fastestTraining.set(c, Math.min(fastestTraining.get(c) ?? Infinity, timed.ms));
          continue;
        }
        times.set(label(strategy), timed.ms);
        if (strategy === 'auto') picks.set(c, [...(picks.get(c) ?? []), timed.backend]);
      }
      if (measured) perRound.set(c, [...(perRound.get(c) ?? []), times]);
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
  let withinOfMedians = 0;
  let worstRatio = Infinity;
  let worstCase = '';
  for (const c of cases) {
    const roundsOfCase = perRound.get(c) ?? [];
    const samplesOf = (name: string): number[] => roundsOfCase.flatMap((t) => (t.has(name) ? [t.get(name) ?? NaN] : []));
    const medians = new Map(backends.filter((b) => samplesOf(b).length > 0).map((b) => [b, stats(samplesOf(b)).median] as const));
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
    const autoSamples = samplesOf('auto');
    const autoMs = autoSamples.length > 0 ? stats(autoSamples).median : NaN;
    // >= 1: auto as fast as the best single backend. Paired: that backend and auto in the same round.
    const paired = roundsOfCase.flatMap((t) => {
      const [best, auto] = [t.get(bestName), t.get('auto')];
      return best === undefined || auto === undefined ? [] : [best / auto];
    });
    const ratio = paired.length > 0 ? stats(paired).median : NaN;
    const ratioOfMedians = bestMs / autoMs;
    if (ratio >= AUTO_TARGET) within++;
    if (ratioOfMedians >= AUTO_TARGET) withinOfMedians++;
    if (!(ratio >= worstRatio)) {
      worstRatio = ratio;
      worstCase = c.name;
    }
    const row: Record<string, string | number> = { case: c.name, family: caseFamily(c), inputElements: inputElements(c) };
    for (const name of backends) row[`${name}Ms`] = medians.get(name) ?? 'n/a';
    row['fastest'] = bestName;
    row['autoMs'] = autoMs;
    row['autoPicked'] = [...new Set(picks.get(c) ?? [])].join('/');
    row['autoVsBest'] = ratio;
    row['autoVsBestOfMedians'] = ratioOfMedians;
    rows.push(row);
  }
  const accuracy = right / Math.max(1, decisions);
  const lostShare = lostMs / Math.max(1e-9, oracleMs);
  const verdicts = [
    `backends: ${backends.join(', ')} (the reference is a fallback only, not a candidate); ${cases.length} cases; per measured round every case runs under auto and on each backend alone, interleaved, back to back in shuffled order (auto between the GPU-only and CPU-only calls, order flipped every round; ${gpuPauseMs} ms pause after a GPU call; a sample = median of a block of ~${BLOCK_MS} ms, ${MAX_BLOCK_CALLS} calls at most); ${MEASURED_ROUNDS} measured rounds after ${TRAIN_ROUNDS} training rounds = ${decisions} decisions`,
    `dispatch accuracy ${(100 * accuracy).toFixed(1)}% picked the fastest backend within ${Math.round((NOISE - 1) * 100)}% (strict: ${((100 * strictlyRight) / Math.max(1, decisions)).toFixed(1)}%) (target >= 98%) -> ${accuracy >= 0.98 ? 'MET' : 'MISSED'}`,
    `time lost to wrong decisions ${(100 * lostShare).toFixed(2)}% of the oracle's total (target <= 2%) -> ${lostShare <= 0.02 ? 'MET' : 'MISSED'}`,
    `auto >= ${AUTO_TARGET}x the best single backend in ${within}/${rows.length} cases; worst ${worstRatio.toFixed(2)}x (${worstCase}) (target: every case) -> ${within === rows.length ? 'MET' : 'MISSED'} ` +
      `(per case the median of ${MEASURED_ROUNDS} per-round paired ratios of whole calls including the read-back, on a shared machine; as a ratio of separate medians: ${withinOfMedians}/${rows.length})`,
  ];
  return { suite: 'dispatch', rows, verdicts, plots: dispatchPlots(rows, backends) };
}
