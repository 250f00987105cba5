// Runs one decoder size under every strategy: phases x strategies, interleaved in rounds (so drift hits every
// strategy alike) in an order shuffled per round (so no strategy always follows the same one), medians per cell. On a software GPU the 7B layer's GPU runs are cut short (see skipGpu).
import { sampleStats } from '@tandem/core';
import {
  DecoderBlock,
  createDecoderWeights,
  type DecoderConfig,
  type GraphStrategy,
  type KvCache,
  type PlacementSummary,
} from '@tandem/graph';
import { progress, type Row } from '../report.ts';
import { shuffled } from '../order.ts';
import type { GraphBench } from './setup.ts';
import { filledCache, phaseName, replicateCache, runPhase, type Phase, type Sample } from './measure.ts';

/** One size to measure. */
export interface SizeCase {
  /** Block sizes and weight type. */
  readonly config: DecoderConfig;
  /** Phases to run. */
  readonly phases: readonly Phase[];
  /** Repetitions per (phase, strategy) with a fast GPU; `slowReps` on a software GPU for GPU-placing strategies. */
  readonly reps: number;
  /**
   * Repetitions of the strategies whose warm-up ran within FAST_WITHIN of the fastest one's, when more than `reps`
   * (the 7B layer: cpu-only takes seconds a run, the others milliseconds, and five to seven runs of those were too few
   * for a 5% verdict on a shared host). On a software GPU only for CPU-placing strategies whose warm-up took at most
   * SHORT_RUN_MS (five runs of a 7B decode on the CPU there were too few too: docs/decisions.md, issue 29).
   */
  readonly fastReps?: number;
  /** Unmeasured runs per strategy before the measured rounds (graph building, JIT, first plans, pipelines). */
  readonly warmups: number;
  /** Repetitions of the strategies that put matmuls on the GPU when it is a software one. */
  readonly slowReps: number;
  /** On a software GPU, skip those strategies' prefills (too slow), quoting a 16-token probe instead. */
  readonly cutSoftwareGpuPrefill: boolean;
}

/** The strategies compared; 'split' (a fixed ggml-style rule) and 'per-op' (greedy) are the naive placements. */
export const STRATEGIES: readonly GraphStrategy[] = ['cpu-only', 'gpu-only', 'auto', 'split', 'per-op'];

/**
 * Samples of the A/A control: per phase, the single strategy whose warm-up was fastest (cpu-only or gpu-only) runs a
 * second time in every round under this name, so the suite can show how far apart two runs of one strategy land.
 */
export const CONTROL_LABEL = 'control';

/** Per phase: samples per strategy name (missing = not run), and a note when the GPU runs were cut. */
export interface SizeResult {
  /** The case. */
  readonly size: SizeCase;
  /** phase name -> strategy -> samples. */
  readonly samples: ReadonlyMap<string, ReadonlyMap<string, readonly Sample[]>>;
  /** phase name -> why gpu-only was not measured, with an estimate. */
  readonly gpuSkipped: ReadonlyMap<string, string>;
  /** phase name -> unmeasured 'auto' runs after the warm-ups until it had measured its candidate plans (see settleAuto). */
  readonly autoLearningRuns: ReadonlyMap<string, number>;
  /** phase name -> the strategy the A/A control ran (samples under CONTROL_LABEL). */
  readonly controlOf: ReadonlyMap<string, GraphStrategy>;
}

/**
 * Most extra warm-up runs 'auto' gets to measure its candidate plans and measure them again at the first remake, 32
 * runs after the second plan (see settleAuto), before the measured rounds (0 on a software GPU).
 */
const AUTO_SETTLE_MAX = 72;

/** A strategy whose warm-up took at most this many times the fastest one's gets `fastReps` (see SizeCase). */
const FAST_WITHIN = 10;

/** On a software GPU, CPU-placing strategies whose warm-up took at most this long get `fastReps`, ms. */
const SHORT_RUN_MS = 100;

/** Strategies that put matmuls on the GPU, hence slow on a software one. */
function placesMatmulsOnGpu(strategy: GraphStrategy): boolean {
  return strategy === 'gpu-only' || strategy === 'split';
}

/** Measures one size; returns its samples. */
export async function runSize(bench: GraphBench, size: SizeCase, label: string): Promise<SizeResult> {
  const block = DecoderBlock.create(bench.engine, createDecoderWeights(size.config, 1));
  const samples = new Map<string, Map<string, Sample[]>>();
  const gpuSkipped = new Map<string, string>();
  const autoLearningRuns = new Map<string, number>();
  const controlOf = new Map<string, GraphStrategy>();
  let probeMsPerToken: number | undefined;
  let filled: KvCache | undefined;
  try {
    const kv = Math.max(0, ...size.phases.map((p) => (p.kind === 'decode' ? p.kv : 0)));
    filled = kv > 0 ? await filledCache(block, kv, bench.preference) : undefined;
    if (filled !== undefined) await replicateCache(bench.engine, filled, bench.preference.gpuBackend);
    for (const phase of size.phases) {
      const phaseStart = performance.now();
      const byStrategy = new Map<string, Sample[]>();
      samples.set(phaseName(phase), byStrategy);
      const warmupMs = new Map<GraphStrategy, number>();
      const reps = (s: GraphStrategy): number => {
        if (bench.softwareGpu && placesMatmulsOnGpu(s)) return size.slowReps;
        const warmup = warmupMs.get(s) ?? Infinity;
        const fast =
          warmup <= Math.min(...warmupMs.values()) * FAST_WITHIN && (!bench.softwareGpu || warmup <= SHORT_RUN_MS);
        return fast ? Math.max(size.reps, size.fastReps ?? 0) : size.reps;
      };
      if (bench.softwareGpu && size.cutSoftwareGpuPrefill && phase.kind === 'prefill') {
        probeMsPerToken ??= await gpuProbe(block, bench);
        gpuSkipped.set(
          phaseName(phase),
          `not run on ${bench.gpuDevice}: a 16-token prefill took ${(probeMsPerToken * 16).toFixed(0)} ms, so this one would take >= ${((probeMsPerToken * phase.tokens) / 1000).toFixed(0)} s`,
        );
      }
      for (const strategy of STRATEGIES) {
        const skip =
          (gpuSkipped.has(phaseName(phase)) && placesMatmulsOnGpu(strategy)) ||
          (bench.softwareGpu && placesMatmulsOnGpu(strategy));
        for (let w = 0; w < (skip ? 0 : size.warmups); w++)
          warmupMs.set(strategy, (await runPhase(block, phase, strategy, bench.preference, filled)).ms);
      }
      const fastest = Math.min(...warmupMs.values());
      const companions = STRATEGIES.filter(
        (s) => s !== 'auto' && (warmupMs.get(s) ?? Infinity) <= fastest * FAST_WITHIN,
      );
      autoLearningRuns.set(phaseName(phase), await settleAuto(block, phase, bench, filled, companions));
      // On a software GPU its runs are slow and leave the CPU busy for a while (Dawn / SwiftShader threads), which
      // would perturb whichever strategy runs next: there, the CPU-placing strategies are interleaved among
      // themselves first and the GPU-placing ones run after them.
      const control: GraphStrategy =
        (warmupMs.get('gpu-only') ?? Infinity) < (warmupMs.get('cpu-only') ?? Infinity) ? 'gpu-only' : 'cpu-only';
      controlOf.set(phaseName(phase), control);
      // Every strategy under its own name, and the control's strategy once more under CONTROL_LABEL, in its group.
      const entries = (group: readonly GraphStrategy[]): Array<{ name: string; strategy: GraphStrategy }> => [
        ...group.map((strategy) => ({ name: String(strategy), strategy })),
        ...(group.includes(control) ? [{ name: CONTROL_LABEL, strategy: control }] : []),
      ];
      const groups = (
        bench.softwareGpu
          ? [STRATEGIES.filter((s) => !placesMatmulsOnGpu(s)), STRATEGIES.filter(placesMatmulsOnGpu)]
          : [STRATEGIES]
      ).map(entries);
      const total = groups.reduce((sum, g) => sum + g.length * Math.max(...g.map((e) => reps(e.strategy))), 0);
      let done = 0;
      for (const [groupIndex, group] of groups.entries()) {
        const rounds = Math.max(...group.map((e) => reps(e.strategy)));
        for (let round = 0; round < rounds; round++) {
          for (const { name, strategy } of shuffled(group, 1000 * groupIndex + round)) {
            done++;
            if (round >= reps(strategy) || (gpuSkipped.has(phaseName(phase)) && placesMatmulsOnGpu(strategy))) continue;
            progress(`${label} ${phaseName(phase)}`, done, total);
            const sample = await runPhase(block, phase, strategy, bench.preference, filled);
            const list = byStrategy.get(name) ?? [];
            list.push(sample);
            byStrategy.set(name, list);
          }
        }
      }
      progress(`${label} ${phaseName(phase)}`, total, total);
      console.log(`${label} ${phaseName(phase)}: measured (${((performance.now() - phaseStart) / 1000).toFixed(1)} s)`);
    }
  } finally {
    filled?.dispose();
    block.dispose();
  }
  return { size, samples, gpuSkipped, autoLearningRuns, controlOf };
}

/**
 * Runs 'auto' (unmeasured) while its runs are still measuring candidate plans (each a few runs; see node-decision.ts),
 * through the first plan remake after they were measured (which measures the close ones again, their first runs
 * having come while everything warmed up), up to AUTO_SETTLE_MAX runs: the measured rounds then compare its steady
 * state, and the count is reported as what learning cost. On a software GPU no extra runs: a candidate placing
 * matmuls there takes seconds per run.
 * Each of auto's runs comes in a round with `companions` (the other strategies within FAST_WITHIN of the fastest), in
 * shuffled order, as in the measured rounds: auto measures its candidates in the conditions it is then judged in (a
 * run after another strategy finds other caches and a colder device than a run after itself; measured back to back,
 * auto had settled on a plan slower in the rounds: docs/decisions.md, issue 29). Slower strategies (a 7B prefill on the CPU, seconds a run)
 * are left out of these rounds: no near tie there.
 */
async function settleAuto(
  block: DecoderBlock,
  phase: Phase,
  bench: GraphBench,
  filled: KvCache | undefined,
  companions: readonly GraphStrategy[],
): Promise<number> {
  const limit = bench.softwareGpu ? 0 : AUTO_SETTLE_MAX;
  let measuring = false; // a run has measured candidates
  let remade = false; // and a plan was made after that
  for (let runs = 0; runs < limit; runs++) {
    let placement: PlacementSummary | undefined;
    for (const strategy of shuffled<GraphStrategy>(['auto', ...companions], 7919 + runs)) {
      const sample = await runPhase(block, phase, strategy, bench.preference, filled);
      if (strategy === 'auto') placement = sample.report.placement;
    }
    if (measuring && placement?.reused === false) remade = true;
    if (placement?.chosenBy === 'measuring') measuring = true;
    if (placement?.chosenBy !== 'measuring' && (remade || (placement?.candidates ?? 1) <= 1)) return runs + 1;
  }
  return limit;
}

/** ms per token of a 16-token gpu-only prefill (one run): the evidence for skipping longer ones. */
async function gpuProbe(block: DecoderBlock, bench: GraphBench): Promise<number> {
  const sample = await runPhase(block, { kind: 'prefill', tokens: 16 }, 'gpu-only', bench.preference, undefined);
  return sample.ms / 16;
}

/** Rows of one size: per phase and strategy, median and min time, tokens/s, bytes moved per token. */
export function sizeRows(result: SizeResult, label: string): Row[] {
  const rows: Row[] = [];
  for (const [phase, byStrategy] of result.samples) {
    for (const strategy of STRATEGIES) {
      const list = byStrategy.get(String(strategy));
      if (list === undefined || list.length === 0) {
        const skipped = result.gpuSkipped.get(phase);
        if (skipped !== undefined && placesMatmulsOnGpu(strategy))
          rows.push({ size: label, phase, strategy: String(strategy), note: skipped });
        continue;
      }
      const s = sampleStats(list.map((x) => x.ms));
      const last = list[list.length - 1];
      const tokens = last?.tokens ?? 1;
      const placement = last?.report.placement;
      const gpuNodes = last?.report.nodes.filter((n) => n.backend !== 'wasm' && n.backend !== 'reference').length ?? 0;
      rows.push({
        size: label,
        phase,
        strategy: String(strategy),
        medianMs: s.median,
        minMs: s.min,
        reps: s.count,
        tokensPerS: (tokens * 1000) / s.median,
        bytesPerToken: Math.round((last?.report.bytesMoved ?? 0) / tokens),
        gpuNodes: `${gpuNodes}/${last?.report.nodes.length ?? 0}`,
        switches: last?.report.backendSwitches ?? 0,
        ...(placement === undefined
          ? {}
          : {
              planMs: list.reduce((sum, x) => sum + (x.report.placement?.planningMs ?? 0), 0) / list.length,
              overrides: placement.overrides,
            }),
      });
    }
  }
  return rows;
}

/** Median ms of a strategy in a phase, if measured. */
export function medianOf(result: SizeResult, phase: string, strategy: GraphStrategy): number | undefined {
  const list = result.samples.get(phase)?.get(String(strategy));
  return list === undefined || list.length === 0 ? undefined : sampleStats(list.map((x) => x.ms)).median;
}

/** Bytes moved per token in a phase under a strategy (last run), if measured. */
export function bytesPerTokenOf(result: SizeResult, phase: string, strategy: GraphStrategy): number | undefined {
  const list = result.samples.get(phase)?.get(String(strategy));
  const last = list?.[list.length - 1];
  return last === undefined ? undefined : last.report.bytesMoved / last.tokens;
}

/** Plans made during the measured 'auto' runs of a phase, and their mean planning time, ms. */
export function planningOf(result: SizeResult, phase: string): { plans: number; runs: number; msPerPlan: number } {
  const list = result.samples.get(phase)?.get('auto') ?? [];
  const made = list.filter((x) => x.report.placement !== undefined && x.report.placement.explainCalls > 0);
  const ms = made.reduce((sum, x) => sum + (x.report.placement?.planningMs ?? 0), 0);
  return { plans: made.length, runs: list.length, msPerPlan: made.length === 0 ? 0 : ms / made.length };
}

/** Measured 'auto' runs of a phase that ran a candidate plan to measure it (chosenBy 'measuring'). */
export function measuringRunsOf(result: SizeResult, phase: string): number {
  return (result.samples.get(phase)?.get('auto') ?? []).filter((x) => x.report.placement?.chosenBy === 'measuring')
    .length;
}

/** Minimum ms of a strategy in a phase, if measured (the least noisy figure on a shared machine). */
export function minOf(result: SizeResult, phase: string, strategy: GraphStrategy): number | undefined {
  const list = result.samples.get(phase)?.get(String(strategy));
  return list === undefined || list.length === 0 ? undefined : sampleStats(list.map((x) => x.ms)).min;
}

/** Backend per node in the last run of a strategy (empty when not run): equal placements mean equal kernels. */
export function placementOf(result: SizeResult, phase: string, strategy: GraphStrategy): string {
  const list = result.samples.get(phase)?.get(String(strategy));
  return (list?.[list.length - 1]?.report.nodes ?? []).map((n) => n.backend).join(',');
}
