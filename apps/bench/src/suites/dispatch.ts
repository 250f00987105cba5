// Dispatch accuracy (issue 9): a mixed workload over every op at sizes from tiny to large. Each round runs the
// cases in shuffled order, and each case under `auto` and on every backend alone (`{ only }`), back to back, so
// all see the same conditions: the strategies of a case run in an order shuffled per case and round (a fixed order
// had `auto` always right after a GPU-only or a CPU-only call of the same case and never after a call of the backend
// it picked, while that backend's own calls did follow auto's), each timed call follows an untimed one of the same
// strategy, and every call that ran on a GPU is followed by a pause (a long one on a software GPU, whose worker
// threads keep spinning after a call). A sample is the median of a block of calls of about BLOCK_MS (one call of a
// tiny op is mostly noise). The oracle is each case's median time per backend; each `auto` decision is compared
// with it, every call of every measured auto block: the share that picked the fastest backend (within 5%, the
// oracle's own noise; the strict share is reported too) and the time lost to wrong ones.
// `auto` against the best single backend is measured last, per case, with the two interleaved block by block
// (auto, best, best, auto, ...: each sample pair taken back to back under the same conditions, the order within a
// pair alternating), in blocks of ~10 ms; the ratio is the median of the pairs' ratios. The per-round paired ratio (auto and the best
// backend in the same round, split by which ran first: an order effect shows as a gap) is reported beside it.
// Then the same call by call: groups of four single calls, auto and the best backend in ABBA then BAAB order (or
// the mirror, drawn per pair of groups), no pauses, two hundred groups or more per case, as a median of pair ratios and as a ratio of medians (callAbbaRatios). Both measures also run an A/A control (the best backend against itself in the
// same harness): how often each misses 0.97 with nothing to find.
// Training rounds (not counted) come first: the scheduler learns as it would from a user's first calls (single
// calls in the first round), then from the calls the measured rounds make (an untimed call and a block, in the
// later ones).
import { createRng, monotonicClock, sampleStats, type Engine, type Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { caseFamily, inputElements } from '../dispatch/case-size.ts';
import { dispatchCases, type DispatchCase } from '../dispatch/cases.ts';
import { AUTO_TARGET, dispatchPlots } from '../dispatch/plots.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { progress, resultsDir, type Row, type SuiteOptions, type SuiteResult } from '../report.ts';
import { shuffled } from '../order.ts';

/** A pick counts as right when its oracle time is within this factor of the fastest backend's. */
const NOISE = 1.05;
/** Shuffled rounds of the workload under auto: training, then measured. */
const TRAIN_ROUNDS = 4;
/**
 * Training rounds of single calls (each after the previous strategy's GPU pause); the rest run blocks as the measured
 * rounds do. With all four rounds single calls, every rocm call in training followed a pause (cold), so the first
 * measured round was judged against warm blocks on estimates learned from cold calls, and held most of a run's wrong
 * picks (docs/decisions.md, issue 29).
 */
const SINGLE_CALL_TRAIN_ROUNDS = 1;
const MEASURED_ROUNDS = 12;
/** Pause after a call that ran on a software GPU (SwiftShader's threads wind down) and on a real one, ms. */
const SOFTWARE_GPU_PAUSE_MS = 100;
const GPU_PAUSE_MS = 20;
/** Each measured sample is the median of a block of calls lasting about this long (tiny ops: one call is noise). */
const BLOCK_MS = 1;
const MAX_BLOCK_CALLS = 16;
/** Block pairs of auto and the best backend, interleaved, per case. */
const INTERLEAVED_PAIRS = 24;
/**
 * Blocks of the interleaved comparison last about this long: calls of one op on one backend vary several-fold
 * (garbage collection of the read-back copies), so 1 ms blocks (two calls) made auto-vs-wasm ratios far from 1 on a
 * case where both ran the same kernel (docs/decisions.md, issue 29). Longer blocks average that out.
 */
const INTERLEAVED_BLOCK_MS = 10;
const INTERLEAVED_MAX_CALLS = 64;
/**
 * The call-level comparison: groups of four single calls back to back, auto and the best backend in ABBA order
 * (BAAB every other group), no pauses, for about CALL_ABBA_CASE_MS per case (CALL_ABBA_MIN_GROUPS to
 * CALL_ABBA_MAX_GROUPS groups). Neighbouring calls share the host's state far better than 10 ms blocks 20 ms apart,
 * and a case gets two hundred groups or more instead of twelve. The same harness with the best backend on both sides
 * (an A/A control) shows how often the measure alone misses 0.97.
 */
// 1000 ms, up to 1600 groups: at 250 ms and at most 400 groups the A/A control's spread let one case in five runs fall
// below 0.97 by chance alone; these settings cut that spread to a third (docs/decisions.md, issue 29).
const CALL_ABBA_CASE_MS = 1000;
// At least 200 groups: fewer let the A/A control of 1M-element ops on wasm (large read-backs and their garbage
// collection) land far from 1; at 200 the median-call form of the controls stays much closer to 1 than the pair form,
// so it is the steadier one (docs/decisions.md, issue 29).
const CALL_ABBA_MIN_GROUPS = 200;
const CALL_ABBA_MAX_GROUPS = 1600;

/**
 * auto against the best backend from ABBA-ordered block pairs: per group of two pairs (auto first, then the best
 * first), the best's total over auto's, and the median over groups. A group holds each strategy once in each position,
 * so a cost of going first (or second) cancels; the median of single pairs' ratios mixes two populations when it
 * does not (the per-round pairs ran slower in first position: docs/decisions.md, issue 29).
 */
export function abbaRatio(pairs: ReadonlyArray<{ readonly best: number; readonly auto: number }>): number {
  const groups: number[] = [];
  for (let k = 0; k + 1 < pairs.length; k += 2) {
    const [first, second] = [pairs[k], pairs[k + 1]];
    if (first !== undefined && second !== undefined)
      groups.push((first.best + second.best) / (first.auto + second.auto));
  }
  return groups.length > 0 ? sampleStats(groups).median : NaN;
}

/** Which side each call of a pair of groups belongs to: ABBA then BAAB, so each side holds every position once. */
const CALL_ABBA_SIDES = ['first', 'second', 'second', 'first', 'second', 'first', 'first', 'second'] as const;
/** A side of the call-by-call comparison. */
type CallSide = (typeof CALL_ABBA_SIDES)[number];

/**
 * The sides of `pairs` pairs of groups in the order they run: CALL_ABBA_SIDES, or its mirror (BAAB then ABBA), drawn
 * per pair from `seed`. With one fixed pattern a slow call every eighth (a garbage collection in step with the
 * calls) landed on the same side every time; drawn, it lands on either. Periods of two and four calls are balanced
 * within each pattern already.
 */
export function callAbbaSides(pairs: number, seed: number): CallSide[] {
  const rng = createRng(seed);
  const mirror = (side: CallSide): CallSide => (side === 'first' ? 'second' : 'first');
  return Array.from({ length: pairs }, () =>
    rng.next() < 0.5 ? [...CALL_ABBA_SIDES] : CALL_ABBA_SIDES.map(mirror),
  ).flat();
}

/**
 * The call-by-call comparison from the calls' times and sides in the order they ran (callAbbaSides; a trailing
 * partial pair is ignored): `pairs`, the median over pairs of groups of second's total over first's; `medians`,
 * second's median call over first's. A ratio per group of four (the first version) mixed two populations whenever
 * one position in four was slower (here, with 4 MiB read-backs on 2 cores: the A/A control of 1M-element wasm ops
 * came out at 0.89-0.94 in all four such cases). `medians` resists a periodic slow call too: here one call in eight
 * (32 MiB of read-backs, a garbage collection) was 1.4x slow and phase-locked to the pairs, so every pair held it and
 * the pair ratios' median of an A/A run came out at 0.91-0.92 where the medians' ratio was 0.98-1.01 (probe, add
 * 1024x1024 on wasm).
 */
export function callAbbaRatios(
  times: readonly number[],
  sides: readonly CallSide[],
): { pairs: number; medians: number } {
  const ratios: number[] = [];
  const calls = { first: [] as number[], second: [] as number[] };
  const size = CALL_ABBA_SIDES.length;
  const whole = Math.min(times.length, sides.length) - (Math.min(times.length, sides.length) % size);
  for (let start = 0; start < whole; start += size) {
    const totals = { first: 0, second: 0 };
    for (let k = start; k < start + size; k++) {
      const [ms, side] = [times[k] ?? NaN, sides[k] ?? 'first'];
      totals[side] += ms;
      calls[side].push(ms);
    }
    ratios.push(totals.second / totals.first);
  }
  if (ratios.length === 0) return { pairs: NaN, medians: NaN };
  return {
    pairs: sampleStats(ratios).median,
    medians: sampleStats(calls.second).median / sampleStats(calls.first).median,
  };
}

/** `first` against `second`, `pairs` pairs of groups of single calls in the order callAbbaSides(pairs, seed) draws (see callAbbaRatios); `onFirst` sees each call of `first`. */
async function callAbbaRatio(
  engine: Engine,
  c: DispatchCase,
  first: Strategy,
  second: Strategy,
  pairs: number,
  seed: number,
  onFirst: (timed: { backend: string; reason: string }) => void,
): Promise<{ pairs: number; medians: number }> {
  const times: number[] = [];
  const sides = callAbbaSides(pairs, seed);
  for (const side of sides) {
    const timed = await timeCall(engine, c, { strategy: side === 'first' ? first : second });
    times.push(timed.ms);
    if (side === 'first') onFirst(timed);
  }
  return callAbbaRatios(times, sides);
}

/** The median time of `calls` calls in a row, the backend of the last, and where and why each call went. */
async function timeBlock(
  engine: Engine,
  c: DispatchCase,
  strategy: Strategy,
  calls: number,
): Promise<{ ms: number; backend: string; backends: string[]; reasons: string[]; costs: Array<Costs | undefined> }> {
  const times: number[] = [];
  const reasons: string[] = [];
  const costs: Array<Costs | undefined> = [];
  const backends: string[] = [];
  for (let i = 0; i < calls; i++) {
    const timed = await timeCall(engine, c, { strategy: strategy });
    times.push(timed.ms);
    reasons.push(timed.reason);
    costs.push(timed.estimates);
    backends.push(timed.backend);
  }
  return { ms: sampleStats(times).median, backend: backends.at(-1) ?? '', backends, reasons, costs };
}

/** 'rocm 140, wasm 4': how many of `backends` are each name, most first. */
function tally(backends: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const b of backends) counts.set(b, (counts.get(b) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}

/** The backend of the engine's last successful op and its reason (a listener: copying the telemetry ring per call made garbage). */
let lastBackend = '';
let lastReason = '';
/** Estimated ms per backend. */
type Costs = Readonly<Record<string, number>>;
/**
 * The estimates behind that decision when it was the cost model's or hysteresis's (the reason's own object: the
 * listener runs inside every timed call, and formatting them there had made each auto call a few us slower than
 * the { only } calls it is compared with).
 */
let lastCosts: Costs | undefined;

async function timeCall(
  engine: Engine,
  c: DispatchCase,
  strategy: Parameters<Engine['run']>[1],
): Promise<{ ms: number; backend: string; reason: string; estimates: Costs | undefined }> {
  const t0 = monotonicClock();
  const outputs = await engine.run(c.call, strategy);
  await outputs[0]?.read(); // the result on the host, as a caller would use it
  const ms = monotonicClock() - t0;
  for (const o of outputs) o.dispose();
  return { ms, backend: lastBackend, reason: lastReason, estimates: lastCosts };
}

/** explain()'s view of a case now: per backend the estimate, ms, and the part of it that is copies ('rocm 0.120 (copies 0.040)'). */
function explainText(engine: Engine, c: DispatchCase): string {
  const e = engine.explain(c.call, { strategy: 'auto' });
  const costs = Object.entries(e.costsMs).map(
    ([b, ms]) => `${b} ${ms.toFixed(3)} (copies ${(e.transfersMs[b] ?? 0).toFixed(3)})`,
  );
  return `${e.selection.backend} by ${e.selection.reason.kind}: ${costs.join(', ')}`;
}

/** '256 KiB', '4 MiB', '512 B'. */
function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${+(bytes / (1 << 20)).toFixed(2)} MiB`;
  if (bytes >= 1 << 10) return `${+(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${Math.round(bytes)} B`;
}

/** Runs the suite. */
export default async function dispatchSuite(options: SuiteOptions): Promise<SuiteResult> {
  if (!options.gpu && process.env['TANDEM_WEBGPU'] === undefined) process.env['TANDEM_WEBGPU'] = 'swiftshader';
  const engine = await createEngine({ profile: false }); // benches start cold: a saved profile would change what they measure
  const unsubscribe = engine.telemetry.subscribe((event) => {
    if (!event.ok) return;
    lastBackend = event.backend;
    lastReason = event.reason.kind;
    lastCosts = event.reason.kind === 'cost-model' || event.reason.kind === 'hysteresis' ? event.costsMs : undefined;
  });
  const backends = engine
    .backends()
    .filter((b) => b.available && b.name !== 'reference')
    .map((b) => b.name);
  // Every strategy of a case, in an order shuffled per case and round.
  const kinds = new Map(engine.backends().map((b) => [b.name, b.kind] as const));
  const strategies: Strategy[] = ['auto', ...backends.map((only) => ({ only }))];
  const label = (s: Strategy): string => (typeof s === 'object' ? s.only : s);
  const gpuPauseMs = options.gpu ? GPU_PAUSE_MS : SOFTWARE_GPU_PAUSE_MS;
  /**
   * Waits after a call that ran on a GPU (the backend it named, or the one auto picked): the full pause after blocks
   * (measured, or training in blocks), the short real-GPU one after the first training round's single calls.
   */
  const pauseAfter = async (strategy: Strategy, ranOn: string, afterBlock: boolean): Promise<void> => {
    const onGpu = typeof strategy === 'object' ? kinds.get(strategy.only) === 'gpu' : kinds.get(ranOn) === 'gpu';
    if (onGpu) await new Promise((resolve) => setTimeout(resolve, afterBlock ? gpuPauseMs : GPU_PAUSE_MS));
  };
  const cases = dispatchCases(engine);
  // perRound.get(case)[measured round].get('auto' | backend name) = ms; picks.get(case) = auto's backends.
  const perRound = new Map<DispatchCase, Array<Map<string, number>>>();
  // Per case and measured round: whether auto ran before the best backend's calls (an order effect shows up as a
  // gap between the ratios of the rounds where auto ran first and those where it ran second).
  const autoFirst = new Map<DispatchCase, Array<Map<string, boolean>>>();
  const picks = new Map<DispatchCase, string[]>();
  // The same decisions' reasons (cost-model, hysteresis, exploring, ...), and their estimates, in the same order.
  const pickCosts = new Map<DispatchCase, Array<Costs | undefined>>();
  const pickReasons = new Map<DispatchCase, string[]>();
  // Why auto's timed calls went where they did (exploration runs are part of what a user pays).
  const autoReasons = new Map<string, number>();
  // Per case, explain()'s view right after each measured auto block: the estimates and their copy part (the block's
  // decisions are picks.get(c)[blockStart.at(k) ..]).
  const autoBlockExplains = new Map<DispatchCase, Array<{ blockStart: number; text: string }>>();
  // Calls per measured sample, from the fastest time seen in training: blocks of about BLOCK_MS.
  const fastestTraining = new Map<DispatchCase, number>();
  const blockCalls = (c: DispatchCase): number =>
    Math.min(MAX_BLOCK_CALLS, Math.max(1, Math.ceil(BLOCK_MS / (fastestTraining.get(c) ?? BLOCK_MS))));
  const interleavedCalls = (c: DispatchCase): number =>
    Math.min(
      INTERLEAVED_MAX_CALLS,
      Math.max(1, Math.ceil(INTERLEAVED_BLOCK_MS / (fastestTraining.get(c) ?? BLOCK_MS))),
    );
  const unsupported = new Set<string>();
  const rounds = TRAIN_ROUNDS + MEASURED_ROUNDS;
  let step = 0;
  for (let round = 0; round < rounds; round++) {
    const measured = round >= TRAIN_ROUNDS;
    for (const [caseIndex, c] of shuffled(cases, 100 + round).entries()) {
      progress('rounds', ++step, rounds * cases.length);
      const times = new Map<string, number>();
      const order = shuffled(strategies, 10_000 * (round + 1) + caseIndex);
      for (const strategy of order) {
        const key = `${c.name}|${label(strategy)}`;
        if (unsupported.has(key)) continue;
        let timed: {
          ms: number;
          backend: string;
          backends?: string[];
          reasons?: string[];
          costs?: Array<Costs | undefined>;
        };
        const inBlocks = round >= SINGLE_CALL_TRAIN_ROUNDS;
        try {
          // An untimed call first: what ran before (another case) must not be charged to this strategy.
          if (inBlocks) await timeCall(engine, c, { strategy: strategy });
          timed = inBlocks
            ? await timeBlock(engine, c, strategy, blockCalls(c))
            : await timeCall(engine, c, { strategy: strategy });
        } catch {
          unsupported.add(key); // this backend cannot take this case (unsupported or too large)
          continue;
        }
        await pauseAfter(strategy, timed.backend, inBlocks);
        if (!measured) {
          fastestTraining.set(c, Math.min(fastestTraining.get(c) ?? Infinity, timed.ms));
          continue;
        }
        times.set(label(strategy), timed.ms);
        if (strategy === 'auto') {
          const blockStart = picks.get(c)?.length ?? 0;
          autoBlockExplains.set(c, [...(autoBlockExplains.get(c) ?? []), { blockStart, text: explainText(engine, c) }]);
          picks.set(c, [...(picks.get(c) ?? []), ...(timed.backends ?? [timed.backend])]); // every call is a decision
          pickReasons.set(c, [...(pickReasons.get(c) ?? []), ...(timed.reasons ?? [])]);
          pickCosts.set(c, [...(pickCosts.get(c) ?? []), ...(timed.costs ?? [])]);
          for (const reason of timed.reasons ?? []) autoReasons.set(reason, (autoReasons.get(reason) ?? 0) + 1);
        }
      }
      if (measured) {
        perRound.set(c, [...(perRound.get(c) ?? []), times]);
        const autoAt = order.indexOf('auto');
        autoFirst.set(c, [...(autoFirst.get(c) ?? []), new Map(order.map((s, i) => [label(s), autoAt < i] as const))]);
      }
    }
  }
  // The oracle: each case's median time per backend over the measured rounds.
  const oracle = (c: DispatchCase): { medians: Map<string, number>; bestName: string; bestMs: number } => {
    const roundsOfCase = perRound.get(c) ?? [];
    const samplesOf = (name: string): number[] =>
      roundsOfCase.flatMap((t) => (t.has(name) ? [t.get(name) ?? NaN] : []));
    const medians = new Map(
      backends.filter((b) => samplesOf(b).length > 0).map((b) => [b, sampleStats(samplesOf(b)).median] as const),
    );
    const [bestName, bestMs] = [...medians].reduce((a, b) => (b[1] < a[1] ? b : a), ['', Infinity]);
    return { medians, bestName, bestMs };
  };
  // auto against the best single backend, interleaved block by block (ABBA...), after one untimed call of each.
  const interleaved = new Map<DispatchCase, number>();
  // The same ABBA measure of the best backend against itself (an A/A control: how often the measure alone misses).
  const blockControl = new Map<DispatchCase, number>();
  // The median of the single pairs' ratios, as reported before the ABBA groups (see abbaRatio).
  const interleavedPairRatios = new Map<DispatchCase, number>();
  // Where every timed auto call of the interleaved comparison ran (a block's median can hide a few calls elsewhere).
  const interleavedBackends = new Map<DispatchCase, string[]>();
  // The first time an interleaved auto block ran elsewhere than the best backend: what explain() said right after.
  const interleavedOffBest = new Map<DispatchCase, string>();
  for (const [i, c] of shuffled(cases, 99).entries()) {
    progress('auto vs best, interleaved', i + 1, cases.length);
    const { bestName } = oracle(c);
    if (bestName === '') continue;
    const best: Strategy = { only: bestName };
    const pairs: Array<{ best: number; auto: number }> = [];
    try {
      for (const strategy of ['auto', best] as const)
        await pauseAfter(strategy, (await timeCall(engine, c, { strategy: strategy })).backend, true);
      for (let k = 0; k < INTERLEAVED_PAIRS; k++) {
        const ms = new Map<string, number>();
        for (const strategy of k % 2 === 0 ? (['auto', best] as const) : ([best, 'auto'] as const)) {
          const timed = await timeBlock(engine, c, strategy, interleavedCalls(c));
          ms.set(label(strategy), timed.ms);
          if (strategy === 'auto') {
            for (const reason of timed.reasons) autoReasons.set(reason, (autoReasons.get(reason) ?? 0) + 1);
            interleavedBackends.set(c, [...(interleavedBackends.get(c) ?? []), ...timed.backends]);
            if (!interleavedOffBest.has(c) && timed.backends.some((b) => b !== bestName))
              interleavedOffBest.set(c, explainText(engine, c));
          }
          await pauseAfter(strategy, timed.backend, true);
        }
        pairs.push({ best: ms.get(bestName) ?? NaN, auto: ms.get('auto') ?? NaN });
      }
      // The A/A control: the best backend against itself, the same blocks, pauses and ABBA order (side A in auto's place).
      const controlPairs: Array<{ best: number; auto: number }> = [];
      for (let k = 0; k < INTERLEAVED_PAIRS; k++) {
        const first = await timeBlock(engine, c, best, interleavedCalls(c));
        await pauseAfter(best, first.backend, true);
        const second = await timeBlock(engine, c, best, interleavedCalls(c));
        await pauseAfter(best, second.backend, true);
        controlPairs.push(k % 2 === 0 ? { auto: first.ms, best: second.ms } : { best: first.ms, auto: second.ms });
      }
      blockControl.set(c, abbaRatio(controlPairs));
    } catch {
      continue; // a failure here leaves the case without an interleaved ratio (reported as NaN)
    }
    interleaved.set(c, abbaRatio(pairs));
    interleavedPairRatios.set(c, sampleStats(pairs.map((p) => p.best / p.auto)).median);
  }
  // auto against the best backend call by call (ABBA groups of single calls), and the best against itself (control).
  const callLevel = new Map<
    DispatchCase,
    {
      ratio: number;
      control: number;
      ratioOfMedians: number;
      controlOfMedians: number;
      groups: number;
      autoRan: string[];
    }
  >();
  for (const [i, c] of shuffled(cases, 98).entries()) {
    progress('auto vs best, call by call', i + 1, cases.length);
    const { bestName, bestMs } = oracle(c);
    if (bestName === '') continue;
    const best: Strategy = { only: bestName };
    const groups =
      2 *
      Math.round(Math.min(CALL_ABBA_MAX_GROUPS, Math.max(CALL_ABBA_MIN_GROUPS, CALL_ABBA_CASE_MS / (4 * bestMs))) / 2);
    const autoRan: string[] = [];
    try {
      for (let k = 0; k < 3; k++)
        for (const strategy of ['auto', best] as const) await timeCall(engine, c, { strategy: strategy });
      const ratio = await callAbbaRatio(engine, c, 'auto', best, groups / 2, 2 * i, (timed) => {
        autoRan.push(timed.backend);
        autoReasons.set(timed.reason, (autoReasons.get(timed.reason) ?? 0) + 1);
      });
      const control = await callAbbaRatio(engine, c, best, best, groups / 2, 2 * i + 1, () => undefined);
      callLevel.set(c, {
        ratio: ratio.pairs,
        control: control.pairs,
        ratioOfMedians: ratio.medians,
        controlOfMedians: control.medians,
        groups,
        autoRan,
      });
    } catch {
      continue; // reported as NaN
    }
    await pauseAfter(best, bestName, true);
  }
  unsubscribe();
  // Cost-model resets (a run of measurements at one size far off the estimate: that size is re-learned) per backend and op.
  const resetNotices = engine.telemetry.noticeEvents().filter((n) => n.kind === 'cost-model-reset');
  const resets = tally(resetNotices.map((n) => `${n.backend} ${n.op ?? '?'}`));
  // What the first resets said (the size, the last measurement and the estimate it was off from).
  const firstResets = resetNotices
    .slice(0, 8)
    .map(
      (n) =>
        `${n.backend} ${n.detail.replace(/ or more measurements in a row of this size| or more off the estimate|; this size is re-learned from them/g, '')}`,
    );
  // Per case, explain() once everything ran: the estimates and their copy part, against the oracle's medians.
  const explainAtEnd = new Map(cases.map((c) => [c, explainText(engine, c)] as const));
  // What the engine learned of each backend's read-backs at the end (size class: typical bytes -> median ms).
  const copyLines = backends.map(
    (b) =>
      `${b} ${
        engine
          .copyTimes(b)
          .download.map((p) => `${formatBytes(p.bytes)} ${p.ms.toFixed(3)}`)
          .join(', ') || 'none'
      }`,
  );
  await engine.dispose();

  const rows: Row[] = [];
  let right = 0;
  let strictlyRight = 0;
  let decisions = 0;
  let oracleMs = 0;
  let lostMs = 0;
  let within = 0;
  let withinOfMedians = 0;
  let withinPairs = 0;
  let withinRounds = 0;
  let withinBlockControl = 0;
  let withinCalls = 0;
  let withinControl = 0;
  let withinCallMedians = 0;
  let withinControlMedians = 0;
  let worstCallRatio = Infinity;
  let worstCallCase = '';
  let worstRatio = Infinity;
  let worstCase = '';
  const ratiosAutoFirst: number[] = [];
  const ratiosAutoSecond: number[] = [];
  for (const c of cases) {
    const roundsOfCase = perRound.get(c) ?? [];
    const samplesOf = (name: string): number[] =>
      roundsOfCase.flatMap((t) => (t.has(name) ? [t.get(name) ?? NaN] : []));
    const { medians, bestName, bestMs } = oracle(c);
    const wrong: string[] = [];
    const reasonsOfCase = pickReasons.get(c) ?? [];
    const costsOfCase = pickCosts.get(c) ?? [];
    let firstWrongCosts = '';
    let firstWrongExplain = '';
    for (const [i, backend] of (picks.get(c) ?? []).entries()) {
      const chosen = medians.get(backend);
      if (chosen === undefined) continue;
      decisions++;
      if (chosen <= bestMs * NOISE) right++;
      else {
        wrong.push(`${backend} by ${reasonsOfCase[i] ?? '?'}`);
        const costs = costsOfCase[i];
        if (firstWrongCosts === '' && costs !== undefined)
          firstWrongCosts = Object.entries(costs)
            .map(([b, ms]) => `${b} ${ms.toFixed(3)}`)
            .join(', ');
        if (firstWrongExplain === '')
          firstWrongExplain =
            [...(autoBlockExplains.get(c) ?? [])].reverse().find((e) => e.blockStart <= i)?.text ?? '';
      }
      if (chosen <= bestMs) strictlyRight++;
      oracleMs += bestMs;
      lostMs += chosen - bestMs;
    }
    const autoSamples = samplesOf('auto');
    const autoMs = autoSamples.length > 0 ? sampleStats(autoSamples).median : NaN;
    // >= 1: auto as fast as the best single backend. Paired: that backend and auto in the same round.
    const firstOfCase = autoFirst.get(c) ?? [];
    const pairedWhen = (first: boolean | undefined): number[] =>
      roundsOfCase.flatMap((t, i) => {
        const [best, auto] = [t.get(bestName), t.get('auto')];
        if (best === undefined || auto === undefined) return [];
        return first === undefined || firstOfCase[i]?.get(bestName) === first ? [best / auto] : [];
      });
    const paired = pairedWhen(undefined);
    const roundRatio = paired.length > 0 ? sampleStats(paired).median : NaN;
    if (roundRatio >= AUTO_TARGET) withinRounds++;
    const ratio = interleaved.get(c) ?? NaN;
    for (const [first, into] of [
      [true, ratiosAutoFirst],
      [false, ratiosAutoSecond],
    ] as const) {
      const some = pairedWhen(first);
      if (some.length > 0) into.push(sampleStats(some).median);
    }
    const ratioOfMedians = bestMs / autoMs;
    if (ratio >= AUTO_TARGET) within++;
    if (ratioOfMedians >= AUTO_TARGET) withinOfMedians++;
    if ((interleavedPairRatios.get(c) ?? NaN) >= AUTO_TARGET) withinPairs++;
    if (!(ratio >= worstRatio)) {
      worstRatio = ratio;
      worstCase = c.name;
    }
    const calls = callLevel.get(c);
    if ((calls?.ratio ?? NaN) >= AUTO_TARGET) withinCalls++;
    if ((calls?.control ?? NaN) >= AUTO_TARGET) withinControl++;
    if ((calls?.ratioOfMedians ?? NaN) >= AUTO_TARGET) withinCallMedians++;
    if ((calls?.controlOfMedians ?? NaN) >= AUTO_TARGET) withinControlMedians++;
    if ((blockControl.get(c) ?? NaN) >= AUTO_TARGET) withinBlockControl++;
    if (!((calls?.ratio ?? NaN) >= worstCallRatio)) {
      worstCallRatio = calls?.ratio ?? NaN;
      worstCallCase = c.name;
    }
    const row: Record<string, string | number> = {
      case: c.name,
      family: caseFamily(c),
      inputElements: inputElements(c),
    };
    for (const name of backends) row[`${name}Ms`] = medians.get(name) ?? 'n/a';
    row['fastest'] = bestName;
    row['autoMs'] = autoMs;
    row['autoPicked'] = [...new Set(picks.get(c) ?? [])].join('/');
    row['autoWrongPicks'] =
      `${wrong.length}/${(picks.get(c) ?? []).length}${wrong.length > 0 ? ` (${tally(wrong)})` : ''}`;
    row['firstWrongPickEstimatesMs'] = firstWrongCosts;
    row['firstWrongPickBlockExplain'] = firstWrongExplain;
    row['explainAtEnd'] = explainAtEnd.get(c) ?? '';
    row['autoVsBest'] = ratio;
    row['autoVsBestPairs'] = interleavedPairRatios.get(c) ?? NaN;
    row['controlBlocks'] = blockControl.get(c) ?? NaN;
    row['autoRanInterleaved'] = tally(interleavedBackends.get(c) ?? []);
    row['interleavedOffBestExplain'] = interleavedOffBest.get(c) ?? '';
    row['autoVsBestCalls'] = calls?.ratio ?? NaN;
    row['controlCalls'] = calls?.control ?? NaN;
    row['autoVsBestCallMedians'] = calls?.ratioOfMedians ?? NaN;
    row['controlCallMedians'] = calls?.controlOfMedians ?? NaN;
    row['callGroups'] = calls?.groups ?? 0;
    row['autoRanCalls'] = tally(calls?.autoRan ?? []);
    row['autoVsBestRounds'] = roundRatio;
    row['autoVsBestOfMedians'] = ratioOfMedians;
    rows.push(row);
  }
  const workload = mixedWorkloadVerdict(cases, perRound, backends, options.gpu);
  const accuracy = right / Math.max(1, decisions);
  const lostShare = lostMs / Math.max(1e-9, oracleMs);
  const verdicts = [
    `backends: ${backends.join(', ')} (the reference is a fallback only, not a candidate); ${cases.length} cases; per measured round every case runs under auto and on each backend alone, back to back, the cases and each case's strategies in shuffled order (${gpuPauseMs} ms pause after a call on a GPU; a sample = median of a block of ~${BLOCK_MS} ms, ${MAX_BLOCK_CALLS} calls at most); ${MEASURED_ROUNDS} measured rounds after ${TRAIN_ROUNDS} training rounds (${SINGLE_CALL_TRAIN_ROUNDS} of single calls, then ${TRAIN_ROUNDS - SINGLE_CALL_TRAIN_ROUNDS} in blocks as measured) = ${decisions} decisions`,
    `dispatch accuracy ${(100 * accuracy).toFixed(1)}% picked the fastest backend within ${Math.round((NOISE - 1) * 100)}% (strict: ${((100 * strictlyRight) / Math.max(1, decisions)).toFixed(1)}%) (target >= 98%) -> ${accuracy >= 0.98 ? 'MET' : 'MISSED'}`,
    `time lost to wrong decisions ${(100 * lostShare).toFixed(2)}% of the oracle's total (target <= 2%) -> ${lostShare <= 0.02 ? 'MET' : 'MISSED'}`,
    `auto >= ${AUTO_TARGET}x the best single backend in ${within}/${rows.length} cases; worst ${worstRatio.toFixed(2)}x (${worstCase}) (target: every case) -> ${within === rows.length ? 'MET' : 'MISSED'} ` +
      `(per case the median over ${INTERLEAVED_PAIRS / 2} ABBA groups of the best backend's time over auto's, from back-to-back blocks of ~${INTERLEAVED_BLOCK_MS} ms (${INTERLEAVED_MAX_CALLS} calls at most) of whole calls including the read-back, auto and the best backend interleaved, on a shared machine; as the median of the ${INTERLEAVED_PAIRS} single pairs' ratios: ${withinPairs}/${rows.length}; as the median of per-round paired ratios: ${withinRounds}/${rows.length}; as a ratio of the rounds' separate medians: ${withinOfMedians}/${rows.length}; A/A control, the best backend against itself in the same blocks: ${withinBlockControl}/${rows.length} >= ${AUTO_TARGET})`,
    `auto >= ${AUTO_TARGET}x the best single backend call by call in ${withinCalls}/${rows.length} cases; worst ${worstCallRatio.toFixed(2)}x (${worstCallCase}) (target: every case) -> ${withinCalls === rows.length ? 'MET' : 'MISSED'} ` +
      `(per case the median over ${CALL_ABBA_MIN_GROUPS / 2}-${CALL_ABBA_MAX_GROUPS / 2} pairs of groups (~${CALL_ABBA_CASE_MS} ms of calls) of four single whole calls back to back, auto and the best backend in ABBA then BAAB order, of the best's time over auto's per pair; ` +
      `A/A control, the best backend against itself in the same harness: ${withinControl}/${rows.length} >= ${AUTO_TARGET}; ` +
      `as the best's median call over auto's, same calls: ${withinCallMedians}/${rows.length}, its A/A control ${withinControlMedians}/${rows.length})`,
    workload,
    `auto's timed calls by reason: ${[...autoReasons].map(([reason, n]) => `${reason} ${n}`).join(', ')}`,
    `cost-model resets over the whole run (telemetry 'cost-model-reset' notices), by backend and op: ${resets === '' ? 'none' : resets}${firstResets.length === 0 ? '' : `; the first: ${firstResets.join('; ')}`}`,
    `read-backs as the engine learned them (per size class: typical bytes, median ms): ${copyLines.join('; ')}`,
    `order check: median over cases of the per-round paired ratio in rounds where auto ran before the best backend ${ratiosAutoFirst.length > 0 ? sampleStats(ratiosAutoFirst).median.toFixed(3) : 'n/a'}, after it ${ratiosAutoSecond.length > 0 ? sampleStats(ratiosAutoSecond).median.toFixed(3) : 'n/a'} (equal conditions: both near the overall ratio)`,
  ];
  // Every measured auto block's explain() and picks, per case, for tracing how estimates moved over the run.
  const trace = Object.fromEntries(
    cases.map((c) => {
      const blocks = autoBlockExplains.get(c) ?? [];
      const picked = picks.get(c) ?? [];
      return [
        c.name,
        blocks.map((b, k) => ({
          round: k,
          explain: b.text,
          picks: tally(picked.slice(b.blockStart, blocks[k + 1]?.blockStart ?? picked.length)),
        })),
      ];
    }),
  );
  await mkdir(resultsDir(), { recursive: true });
  await writeFile(path.join(resultsDir(), 'dispatch-trace.json'), `${JSON.stringify(trace, null, 1)}\n`);
  return { suite: 'dispatch', rows, verdicts, plots: dispatchPlots(rows, backends) };
}

/**
 * The whole workload as one job: per measured round, the sum over cases of one call's time (each sample is a block's
 * median) under auto and under each backend alone, over the cases every backend can run; auto against each backend
 * as the median over rounds of backend total / auto total (> 1: auto faster). The issue asks auto to beat every single
 * backend on it on the GPU machine.
 */
function mixedWorkloadVerdict(
  cases: readonly DispatchCase[],
  perRound: ReadonlyMap<DispatchCase, ReadonlyArray<ReadonlyMap<string, number>>>,
  backends: readonly string[],
  gpu: boolean,
): string {
  const names = ['auto', ...backends];
  const common = cases.filter((c) => (perRound.get(c) ?? []).some((t) => names.every((n) => t.has(n))));
  const left = cases.filter((c) => !common.includes(c)).map((c) => c.name);
  const rounds = Math.max(0, ...common.map((c) => perRound.get(c)?.length ?? 0));
  const totals: Array<Map<string, number>> = [];
  for (let r = 0; r < rounds; r++) {
    const sums = new Map<string, number>();
    const complete = common.every((c) => names.every((n) => perRound.get(c)?.[r]?.has(n) === true));
    if (!complete) continue; // a round where some strategy failed on some case: not a like-for-like total
    for (const c of common)
      for (const n of names) sums.set(n, (sums.get(n) ?? 0) + (perRound.get(c)?.[r]?.get(n) ?? NaN));
    totals.push(sums);
  }
  if (totals.length === 0) return 'mixed workload: no round in which every strategy ran every common case';
  const medianTotal = (n: string): number => sampleStats(totals.map((t) => t.get(n) ?? NaN)).median;
  const ratios = backends.map((b) => ({
    b,
    ratio: sampleStats(totals.map((t) => (t.get(b) ?? NaN) / (t.get('auto') ?? NaN))).median,
  }));
  const beatsAll = ratios.every((x) => x.ratio > 1);
  return (
    `mixed workload (one call of each of the ${common.length} cases every backend runs${left.length > 0 ? `; left out: ${left.join(', ')}` : ''}), median over ${totals.length} rounds: ` +
    `auto ${medianTotal('auto').toFixed(2)} ms, ${backends.map((b) => `${b} alone ${medianTotal(b).toFixed(2)} ms`).join(', ')}; ` +
    `per-round ${ratios.map((x) => `${x.b}/auto ${x.ratio.toFixed(3)}`).join(', ')} -> auto faster than every single backend: ${beatsAll ? 'yes' : 'NO'}` +
    (gpu ? '' : ' (the issue asks this of the GPU machine; with a software GPU the best auto can do is tie the CPU)')
  );
}
