// Table rows of the webgpu suite: every row carries median, min, max and repetitions of its timing.
import type { SampleStats } from '@tandem/core';
import type { Row } from '../report.ts';
import { describeCheck } from '../sampled-check.ts';
import { matmulTflops, type EngineFigures, type MatmulSize } from './matmul-sweep.ts';
import { cosineTbps, type CosineFigures } from './cosine-sweep.ts';
import type { Outcome } from './guard.ts';
import type { LatencyPoint } from './latency.ts';
import type { WaitCost } from './wait-cpu.ts';

/** Median, min, max and reps of `s` under `prefix` (e.g. kernelMs -> kernelMs, kernelMinMs, ...). */
export function statsFields(prefix: string, s: SampleStats | undefined): Record<string, number | string> {
  if (s === undefined) return { [`${prefix}Median`]: 'n/a' };
  return { [`${prefix}Median`]: s.median, [`${prefix}Min`]: s.min, [`${prefix}Max`]: s.max, reps: s.count };
}

function engineRow(n: number, engine: string, figures: Outcome<EngineFigures>): Row {
  if (!figures.ok) return { section: 'matmul', engine, n, note: figures.reason };
  const f = figures.value;
  return {
    section: 'matmul',
    engine,
    n,
    ...statsFields('kernelMs', f.kernel),
    ...statsFields('wallMs', f.wall),
    kernelTflops: matmulTflops(n, f.kernel),
    wallTflops: matmulTflops(n, f.wall),
    check: describeCheck(f.check),
  };
}

/** Rows of the matmul sweep: ours then tfjs at each n. */
export function matmulRows(sizes: readonly MatmulSize[]): Row[] {
  return sizes.flatMap((s) => [engineRow(s.n, 'tandem-webgpu', s.ours), engineRow(s.n, 'tfjs-backend-webgpu', s.tfjs)]);
}

/** Rows of the cosine sweep. */
export function cosineRows(results: ReadonlyArray<Outcome<CosineFigures>>, requested: readonly number[]): Row[] {
  return results.map((r, i) => {
    if (!r.ok) return { section: 'cosine', engine: 'tandem-webgpu', N: requested[i] ?? 0, note: r.reason };
    const f = r.value;
    return {
      section: 'cosine',
      engine: 'tandem-webgpu',
      N: f.count,
      ...statsFields('kernelMs', f.kernel),
      ...statsFields('wallMs', f.wall),
      targetsMB: f.bytes / 1e6,
      kernelTBps: cosineTbps(f),
      check: describeCheck(f.check),
      ...(f.count < f.requested ? { note: `capped from ${f.requested} by the device's largest buffer` } : {}),
    };
  });
}

/** Rows of the latency sweep, one per op, size and backend. */
export function latencyRows(points: readonly LatencyPoint[]): Row[] {
  return points.flatMap((p) =>
    (['webgpu', 'wasm'] as const).map((backend): Row => {
      const r = p.byBackend[backend];
      const base = {
        section: `latency ${p.op}`,
        engine: `tandem-${backend}`,
        [p.op === 'matmul' ? 'n' : 'elements']: p.size,
      };
      return r.ok ? { ...base, ...statsFields('wallMs', r.value) } : { ...base, note: r.reason };
    }),
  );
}

/** The wait-cost row. */
export function waitRow(wait: Outcome<WaitCost>): Row {
  if (!wait.ok) return { section: 'wait cpu', note: wait.reason };
  const w = wait.value;
  return {
    section: 'wait cpu',
    engine: 'tandem-webgpu',
    n: w.n,
    ...statsFields('wallMs', w.wall),
    ...statsFields('mainThreadCpuPct', w.mainThreadPercent),
    ...statsFields('processCpuPct', w.processPercent),
  };
}
