// Latency against size for each backend (every call with `{ only: backend }`) and for `auto`, and where a GPU
// backend starts beating the best CPU backend (the crossover).
import type { Engine, Op, Strategy, Tensor } from '@tandem/core';

/** Label of the sweep's engine calls in telemetry. */
export const SWEEP_LABEL = 'demo.sweep';

/** Which op the sweep runs: square matmul n x n, or cosine of 32 queries against n targets of 100 floats. */
export type SweepOp = 'matmul' | 'cosineSimilarity';

/** Sizes (n) per op. */
export const SWEEP_SIZES: Readonly<Record<SweepOp, readonly number[]>> = {
  matmul: [16, 32, 64, 128, 256, 512],
  cosineSimilarity: [256, 1024, 4096, 16384, 65536],
};

/** Timed calls per point after one warm-up (the median is kept). */
const REPS = 3;
/** A backend whose point took longer than this skips the larger sizes (the reference on big matmuls). */
const SLOW_MS = 1500;

/** One measured point. */
export interface SweepPoint {
  /** Backend name, or 'auto'. */
  readonly series: string;
  /** n. */
  readonly size: number;
  /** Median wall time of one call, ms. */
  readonly medianMs: number;
}

/** Where a GPU backend overtakes the best CPU backend, or why it does not. */
export interface Crossover {
  /** GPU backend. */
  readonly gpu: string;
  /** The smallest size from which the GPU is faster at every larger measured size; undefined when never. */
  readonly size: number | undefined;
  /** A sentence for the page. */
  readonly text: string;
}

function randomData(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

function inputs(engine: Engine, op: SweepOp, n: number): Tensor[] {
  if (op === 'matmul') return [engine.tensor(randomData(n * n, 1), [n, n]), engine.tensor(randomData(n * n, 2), [n, n])];
  return [engine.tensor(randomData(32 * 100, 3), [32, 100]), engine.tensor(randomData(n * 100, 4), [n, 100])];
}

function opOf(op: SweepOp, [a, b]: Tensor[]): Op<Tensor> {
  if (a === undefined || b === undefined) throw new Error('sweep inputs missing');
  return op === 'matmul' ? { op: 'matmul', a, b } : { op: 'cosineSimilarity', queries: a, targets: b };
}

async function timeCall(engine: Engine, op: Op<Tensor>, strategy: Strategy): Promise<number> {
  const start = performance.now();
  const outputs = await engine.run(op, { strategy, label: SWEEP_LABEL });
  const ms = performance.now() - start;
  for (const t of outputs) t.dispose();
  return ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Measures every series at every size (largest sizes skipped for a series once it gets slow); reports each point as it lands. */
export async function runSweep(engine: Engine, op: SweepOp, backends: readonly string[], onPoint: (point: SweepPoint) => void): Promise<SweepPoint[]> {
  const points: SweepPoint[] = [];
  const series = [...backends, 'auto'];
  const slow = new Set<string>();
  for (const size of SWEEP_SIZES[op]) {
    const tensors = inputs(engine, op, size);
    try {
      const call = opOf(op, tensors);
      for (const name of series) {
        if (slow.has(name)) continue;
        const strategy: Strategy = name === 'auto' ? 'auto' : { only: name };
        await timeCall(engine, call, strategy);
        const times: number[] = [];
        for (let r = 0; r < REPS; r++) times.push(await timeCall(engine, call, strategy));
        const point = { series: name, size, medianMs: median(times) };
        if (point.medianMs > SLOW_MS) slow.add(name);
        points.push(point);
        onPoint(point);
      }
    } finally {
      for (const t of tensors) t.dispose();
    }
  }
  return points;
}

/** For each GPU backend, the crossover against the fastest CPU backend at each size. */
export function findCrossovers(points: readonly SweepPoint[], gpuBackends: readonly string[], cpuBackends: readonly string[]): Crossover[] {
  const at = (series: string, size: number): number | undefined => points.find((p) => p.series === series && p.size === size)?.medianMs;
  return gpuBackends.map((gpu) => {
    const sizes = [...new Set(points.filter((p) => p.series === gpu).map((p) => p.size))].sort((a, b) => a - b);
    const gpuWins: boolean[] = [];
    for (const size of sizes) {
      const gpuMs = at(gpu, size) ?? Infinity;
      const cpuMs = Math.min(...cpuBackends.map((c) => at(c, size) ?? Infinity));
      gpuWins.push(gpuMs < cpuMs);
    }
    let from: number | undefined;
    for (let i = sizes.length - 1; i >= 0 && gpuWins[i] === true; i--) from = sizes[i];
    if (sizes.length === 0) return { gpu, size: undefined, text: `${gpu}: not measured` };
    if (from === undefined) return { gpu, size: undefined, text: `${gpu} is slower than the CPU at every size measured (up to n = ${sizes[sizes.length - 1]}): the scheduler should keep this op on the CPU here` };
    if (from === sizes[0]) return { gpu, size: from, text: `${gpu} is faster than the CPU at every size measured (from n = ${from})` };
    return { gpu, size: from, text: `crossover at n = ${from}: ${gpu} is faster than the best CPU backend from there on` };
  });
}
