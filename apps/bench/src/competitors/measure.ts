// Timing shared by the side-by-side comparisons: every engine of one size is warmed up, then measured in
// alternating blocks (ROUNDS per engine), so a noisy neighbour or a clock change hits every engine alike.
import { monotonicClock, sampleStats, type SampleStats } from '@tandem/core';

/** Blocks each engine is measured in, alternating with the others. */
export const ROUNDS = 3;

/** One timed call that resolves with its result. */
export type TimedCall = () => Promise<Float32Array>;

/** Calls `call` until both `minCalls` calls and `minMs` have passed (JIT tiers, caches, thread pools warm). */
export async function warmUp(call: TimedCall, minCalls = 5, minMs = 150): Promise<void> {
  const start = monotonicClock();
  for (let i = 0; i < minCalls || monotonicClock() - start < minMs; i++) await call();
}

/** Pause before each block, ms: threads an engine left spinning (onnxruntime-web's pool, Tandem's workers) go idle. */
const BLOCK_PAUSE_MS = 25;

/** Times each call `reps` times in ROUNDS alternating blocks; the statistics per call, in the same order. */
export async function interleaved(calls: readonly TimedCall[], reps: number): Promise<SampleStats[]> {
  const samples: number[][] = calls.map(() => []);
  const perBlock = Math.max(1, Math.ceil(reps / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, call] of calls.entries()) {
      await new Promise((resolve) => setTimeout(resolve, BLOCK_PAUSE_MS));
      await call(); // the first call after the pause wakes sleeping threads: not timed
      for (let r = 0; r < perBlock; r++) {
        const t0 = monotonicClock();
        await call();
        samples[i]?.push(monotonicClock() - t0);
      }
    }
  }
  return samples.map((s) => sampleStats(s));
}

/** Largest |x - y| / (1 + |y|) over the elements (Infinity when the lengths differ). */
export function maxRelDiff(x: Float32Array, y: Float32Array): number {
  if (x.length !== y.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < y.length; i++)
    worst = Math.max(worst, Math.abs((x[i] ?? 0) - (y[i] ?? 0)) / (1 + Math.abs(y[i] ?? 0)));
  return worst;
}
