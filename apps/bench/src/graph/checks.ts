// The 7B layer against the float64 reference (too slow for the tests), and a mixed prefill + decode run.
import { sampleStats } from '@tandem/core';
import {
  DecoderBlock,
  createDecoderWeights,
  randomActivations,
  referenceDecoderStep,
  type DecoderConfig,
  type GraphStrategy,
  type RunReport,
} from '@tandem/graph';
import { shuffled } from '../order.ts';
import type { GraphBench } from './setup.ts';

/** Largest max|error| / max|reference| over a 4-token prefill and one decode step of `config` under 'auto'. */
export async function referenceCheck(bench: GraphBench, config: DecoderConfig): Promise<number> {
  const weights = createDecoderWeights(config, 1);
  const block = DecoderBlock.create(bench.engine, weights);
  const cache = block.newCache(5);
  let past: { keys: Float32Array; values: Float32Array } = { keys: new Float32Array(0), values: new Float32Array(0) };
  let worst = 0;
  try {
    for (const tokens of [4, 1]) {
      const x = randomActivations(config, tokens, 10 + tokens);
      const want = referenceDecoderStep(weights, x, past);
      const step = await block.forward(x, cache, { ...bench.preference, strategy: 'auto' });
      const got = await step.outputs.get('out').read();
      step.outputs.dispose();
      worst = Math.max(worst, relativeError(got, want.out));
      past = { keys: want.keys, values: want.values };
    }
  } finally {
    cache.dispose();
    block.dispose();
  }
  return worst;
}

/**
 * Median ms, per strategy, of one prefill of `prompt` tokens followed by `decodeSteps` decode steps, and where the
 * last run of each placed its nodes. Strategies run in interleaved rounds, in an order shuffled per round, after one
 * warm-up each; on a software GPU,
 * gpu-only runs last (reps times, no warm-up) so its slow runs do not perturb the others.
 */
export async function mixedRun(
  bench: GraphBench,
  config: DecoderConfig,
  prompt: number,
  decodeSteps: number,
  strategies: readonly GraphStrategy[],
  reps: (strategy: GraphStrategy) => number,
): Promise<{ medians: Map<string, number>; placements: Map<string, string>; times: Map<string, number[]> }> {
  const block = DecoderBlock.create(bench.engine, createDecoderWeights(config, 1));
  const times = new Map<string, number[]>();
  const placements = new Map<string, string>();
  const slow = (s: GraphStrategy): boolean => bench.softwareGpu && s === 'gpu-only';
  const fast = strategies.filter((s) => !slow(s));
  const record = (strategy: GraphStrategy, run: MixedSample): void => {
    times.set(String(strategy), [...(times.get(String(strategy)) ?? []), run.ms]);
    placements.set(String(strategy), run.placement);
  };
  try {
    const rounds = 1 + Math.max(0, ...fast.map(reps));
    for (let round = 0; round < rounds; round++) {
      for (const strategy of shuffled(fast, round)) {
        if (round > reps(strategy)) continue;
        const run = await mixedOnce(block, bench, prompt, decodeSteps, strategy);
        if (round > 0) record(strategy, run);
      }
    }
    for (const strategy of strategies.filter(slow)) {
      for (let r = 0; r < reps(strategy); r++)
        record(strategy, await mixedOnce(block, bench, prompt, decodeSteps, strategy));
    }
  } finally {
    block.dispose();
  }
  return { medians: new Map([...times].map(([s, list]) => [s, sampleStats(list).median])), placements, times };
}

/** One mixed run: its time and where its nodes ran. */
interface MixedSample {
  /** ms until the last output is on the host. */
  readonly ms: number;
  /** 'prefill: gpu 20, wasm 3; decode: wasm 23' (nodes per backend; decode: all steps together). */
  readonly placement: string;
}

/** One prefill + decode sequence. */
async function mixedOnce(
  block: DecoderBlock,
  bench: GraphBench,
  prompt: number,
  decodeSteps: number,
  strategy: GraphStrategy,
): Promise<MixedSample> {
  const config = block.config;
  const cache = block.newCache(prompt + decodeSteps);
  const reports: RunReport[] = []; // read after the clock stops: the run's time is the run's alone
  const t0 = performance.now();
  let step = await block.forward(randomActivations(config, prompt, 5), cache, { ...bench.preference, strategy });
  reports.push(step.report);
  for (let t = 0; t < decodeSteps; t++) {
    await step.outputs.get('out').read();
    const next = await block.forward(randomActivations(config, 1, 6 + t), cache, { ...bench.preference, strategy });
    reports.push(next.report);
    step.outputs.dispose();
    step = next;
  }
  await step.outputs.get('out').read();
  const ms = performance.now() - t0;
  step.outputs.dispose();
  cache.dispose();
  const [prefill, ...decodes] = reports.map((r) => r.nodes.map((n) => n.backend));
  return { ms, placement: `prefill: ${countBy(prefill ?? [])}; decode: ${countBy(decodes.flat())}` };
}

/** 'gpu 20, wasm 3': how many of `names` are each name, most first. */
function countBy(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([n, k]) => `${n} ${k}`)
    .join(', ');
}

function relativeError(got: Float32Array, want: Float32Array): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs((got[i] ?? 0) - (want[i] ?? 0)));
    scale = Math.max(scale, Math.abs(want[i] ?? 0));
  }
  return got.length === want.length ? diff / scale : Infinity;
}
