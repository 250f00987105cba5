// Issue #4 figure 6: latency against size, Tandem's WebGPU backend vs its WASM backend through the engine
// ({ only }), for matmul n x n and elementwise add of N values; each backend keeps its own resident inputs, so no
// transfer is timed. Results are checked (matmul on sampled entries, add exactly).
import { sampleStats } from '@tandem/core';
import type { Engine, SampleStats } from '@tandem/core';
import { progress } from '../report.ts';
import { add } from '@tandem/reference';
import { CHECK_SAMPLES, randomMatrix } from './accounting.ts';
import { checkElementwise, checkMatmulSamples } from '../sampled-check.ts';
import { alternate, type AlternatingCall } from './alternate.ts';
import { repsFor, type WebGpuBenchConfig } from './config.ts';
import { engineCall, type SingleOutputOp } from './engine-call.ts';
import { attempt, type Outcome } from './guard.ts';

/** The backends compared. */
export const LATENCY_BACKENDS = ['webgpu', 'wasm'] as const;

/** One size of one op: median wall per backend. */
export interface LatencyPoint {
  /** 'matmul' (size = n) or 'add' (size = element count). */
  readonly op: 'matmul' | 'add';
  /** n for matmul, element count for add. */
  readonly size: number;
  /** Wall time of run + read per backend, or why not. */
  readonly byBackend: Readonly<Record<(typeof LATENCY_BACKENDS)[number], Outcome<SampleStats>>>;
}

async function measurePoint(
  engine: Engine,
  op: 'matmul' | 'add',
  size: number,
  config: WebGpuBenchConfig,
): Promise<LatencyPoint> {
  const shape = op === 'matmul' ? [size, size] : [size];
  const length = op === 'matmul' ? size * size : size;
  const a = randomMatrix(length, size);
  const b = randomMatrix(length, size + 1);
  const calls: AlternatingCall[] = [];
  const samples: Record<string, number[]> = {};
  const ready: Record<string, Outcome<void>> = {};
  const disposers: Array<() => void> = [];
  try {
    for (const backend of LATENCY_BACKENDS) {
      const ta = engine.tensor(a, shape);
      const tb = engine.tensor(b, shape);
      disposers.push(
        () => ta.dispose(),
        () => tb.dispose(),
      );
      const spec: SingleOutputOp = op === 'matmul' ? { op: 'matmul', a: ta, b: tb } : { op: 'add', a: ta, b: tb };
      const call = engineCall(engine, spec, backend);
      const list: number[] = [];
      samples[backend] = list;
      ready[backend] = await attempt(`${op} ${size} on ${backend}`, config.rowTimeoutMs, async () => {
        const first = await call();
        const right =
          op === 'matmul'
            ? checkMatmulSamples(a, b, first.values, size, CHECK_SAMPLES).ok
            : checkElementwise(first.values, [a, b], add, 64).ok;
        if (!right) throw new Error('wrong result on sampled entries');
        const reps = repsFor(config, (await call()).wallMs);
        calls.push({
          reps,
          call: async () => {
            list.push((await call()).wallMs);
          },
        });
      });
    }
    const timed = await attempt(`${op} ${size} timing`, config.rowTimeoutMs * 2, () => alternate(calls));
    const result = (backend: (typeof LATENCY_BACKENDS)[number]): Outcome<SampleStats> => {
      const r = ready[backend];
      const list = samples[backend] ?? [];
      if (r === undefined || !r.ok) return r ?? { ok: false, reason: 'not run' };
      if (list.length === 0) return timed.ok ? { ok: false, reason: 'no samples' } : timed;
      return { ok: true, value: sampleStats(list) };
    };
    return { op, size, byBackend: { webgpu: result('webgpu'), wasm: result('wasm') } };
  } finally {
    for (const d of disposers) d();
  }
}

/** Latency of matmul at config.latencySizes and add at config.addSizes, on both backends. */
export async function latencySweep(engine: Engine, config: WebGpuBenchConfig): Promise<LatencyPoint[]> {
  const points: LatencyPoint[] = [];
  const jobs: Array<['matmul' | 'add', number]> = [
    ...config.latencySizes.map((n): ['matmul', number] => ['matmul', n]),
    ...config.addSizes.map((n): ['add', number] => ['add', n]),
  ];
  for (const [i, [op, size]] of jobs.entries()) {
    points.push(await measurePoint(engine, op, size, config));
    progress('webgpu vs wasm latency', i + 1, jobs.length);
  }
  return points;
}
