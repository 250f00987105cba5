// Latency against size for each backend (every call with `{ only: backend }`) and for `auto`, measured in the
// engine worker; the page imports only the types from here (where a GPU backend overtakes the CPU:
// sweep-crossovers.ts).
import { median, type Engine, type Op, type Strategy, type Tensor } from '@tandem/core';

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

/** One point of the sweep: measured, lost (its calls failed: the GPU went away mid-sweep), or skipped. */
export interface SweepPoint {
  /** Backend name, or 'auto'. */
  readonly series: string;
  /** n. */
  readonly size: number;
  /** Median wall time of one call, ms (NaN when lost or skipped). */
  readonly medianMs: number;
  /** 'ok', 'lost' (a call failed: `note` says why) or 'skipped' (the series got too slow: `note` says how slow). */
  readonly status: 'ok' | 'lost' | 'skipped';
  /** Why a point has no time. */
  readonly note?: string;
}

/** Lets the page stop a sweep between two calls. */
export interface SweepControl {
  /** Set to stop after the call in flight. */
  cancelled: boolean;
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
  if (op === 'matmul')
    return [engine.tensor(randomData(n * n, 1), [n, n]), engine.tensor(randomData(n * n, 2), [n, n])];
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

/**
 * Measures every series at every size and reports each point as it lands, with how many of all the points are done.
 * The next call waits for `onPoint`'s promise: the page draws each point while nothing is measured, so the drawing
 * neither slows the timed calls nor waits for the CPU they use (on two cores it did: a 22 ms redraw took 55-65 ms).
 * A point whose calls fail (a lost device) is reported lost and the sweep carries on: the next sizes of that series
 * are tried again (the engine may have a new device by then), the other series are unaffected. A series whose point
 * took over SLOW_MS skips its larger sizes, each reported skipped with the reason. Stops between calls once
 * `control.cancelled` is set.
 */
export async function runSweep(
  engine: Engine,
  op: SweepOp,
  backends: readonly string[],
  onPoint: (point: SweepPoint, done: number, total: number) => void | Promise<void>,
  control: SweepControl = { cancelled: false },
  describe: (error: unknown) => string = String,
): Promise<SweepPoint[]> {
  const points: SweepPoint[] = [];
  const series = [...backends, 'auto'];
  const sizes = SWEEP_SIZES[op];
  const total = sizes.length * series.length;
  const slow = new Map<string, string>();
  const report = async (point: SweepPoint): Promise<void> => {
    points.push(point);
    await onPoint(point, points.length, total);
  };
  for (const size of sizes) {
    const tensors = inputs(engine, op, size);
    try {
      const call = opOf(op, tensors);
      for (const name of series) {
        if (control.cancelled) return points;
        const slowNote = slow.get(name);
        if (slowNote !== undefined) {
          await report({ series: name, size, medianMs: Number.NaN, status: 'skipped', note: slowNote });
          continue;
        }
        const strategy: Strategy = name === 'auto' ? 'auto' : { only: name };
        let point: SweepPoint;
        try {
          await timeCall(engine, call, strategy);
          const times: number[] = [];
          for (let r = 0; r < REPS && !control.cancelled; r++) times.push(await timeCall(engine, call, strategy));
          if (times.length < REPS) return points;
          const medianMs = median(times);
          if (medianMs > SLOW_MS)
            slow.set(
              name,
              `skipped: n = ${size} took ${(medianMs / 1000).toFixed(1)} s a call (over ${SLOW_MS / 1000} s)`,
            );
          point = { series: name, size, medianMs, status: 'ok' };
        } catch (error) {
          point = { series: name, size, medianMs: Number.NaN, status: 'lost', note: describe(error) };
        }
        await report(point);
      }
    } finally {
      for (const t of tensors) t.dispose();
    }
  }
  return points;
}
