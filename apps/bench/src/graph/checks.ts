// The 7B layer against the float64 reference (too slow for the tests), and a mixed prefill + decode run.
import { DecoderBlock, createDecoderWeights, randomActivations, referenceDecoderStep, type DecoderConfig, type GraphStrategy } from '@tandem/graph';
import { stats } from '../stats.ts';
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
      const got = await step.output.read();
      step.output.dispose();
      if (!(got instanceof Float32Array)) throw new Error('output is not f32');
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
 * Median ms, per strategy, of one prefill of `prompt` tokens followed by `decodeSteps` decode steps. Strategies
 * run in interleaved rounds after one warm-up each; on a software GPU, gpu-only runs last (reps times, no
 * warm-up) so its slow runs do not perturb the others.
 */
export async function mixedRun(
  bench: GraphBench,
  config: DecoderConfig,
  prompt: number,
  decodeSteps: number,
  strategies: readonly GraphStrategy[],
  reps: (strategy: GraphStrategy) => number,
): Promise<Map<string, number>> {
  const block = DecoderBlock.create(bench.engine, createDecoderWeights(config, 1));
  const times = new Map<string, number[]>();
  const slow = (s: GraphStrategy): boolean => bench.softwareGpu && s === 'gpu-only';
  const fast = strategies.filter((s) => !slow(s));
  try {
    const rounds = 1 + Math.max(0, ...fast.map(reps));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < fast.length; i++) {
        const strategy = fast[(i + round) % fast.length] ?? 'auto';
        if (round > reps(strategy)) continue;
        const ms = await mixedOnce(block, bench, prompt, decodeSteps, strategy);
        if (round > 0) times.set(String(strategy), [...(times.get(String(strategy)) ?? []), ms]);
      }
    }
    for (const strategy of strategies.filter(slow)) {
      for (let r = 0; r < reps(strategy); r++) times.set(String(strategy), [...(times.get(String(strategy)) ?? []), await mixedOnce(block, bench, prompt, decodeSteps, strategy)]);
    }
  } finally {
    block.dispose();
  }
  return new Map([...times].map(([s, list]) => [s, stats(list).median]));
}

/** One prefill + decode sequence, ms until the last output is on the host. */
async function mixedOnce(block: DecoderBlock, bench: GraphBench, prompt: number, decodeSteps: number, strategy: GraphStrategy): Promise<number> {
  const config = block.config;
  const cache = block.newCache(prompt + decodeSteps);
  const t0 = performance.now();
  let step = await block.forward(randomActivations(config, prompt, 5), cache, { ...bench.preference, strategy });
  for (let t = 0; t < decodeSteps; t++) {
    await step.output.read();
    const next = await block.forward(randomActivations(config, 1, 6 + t), cache, { ...bench.preference, strategy });
    step.output.dispose();
    step = next;
  }
  await step.output.read();
  const ms = performance.now() - t0;
  step.output.dispose();
  cache.dispose();
  return ms;
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
