// Section 1: f32 matmul n x n over the sweep: kernel time from the backend's events (TFLOP/s) and wall time per
// call through the engine with { only: 'rocm' } on resident inputs; each size checked on sampled entries.
import { errorMessage, type BoundTensor, type Op, type Tensor, type TensorSpec, type SampleStats } from '@tandem/core';
import type { Row } from '../report.ts';
import { matmulFlops, ratePerSecond } from './figures.ts';
import { bytesOfF32, runAndRead, timeBackendRuns, timeEngineRuns, timingRow, uploadTensor } from './measure.ts';
import { checkMatmulSamples, describeCheck, type SampleCheck } from '../sampled-check.ts';
import type { RocmTarget } from './setup.ts';
import type { RocmBenchSizes } from './sizes.ts';
import { signedValues } from './data.ts';

/** One size of the sweep. */
export interface MatmulPoint {
  /** n of n x n . n x n. */
  readonly n: number;
  /** Kernel time, ms. */
  readonly kernel: SampleStats;
  /** Engine wall time per call, ms. */
  readonly engine: SampleStats;
  /** Sampled check of one result. */
  readonly check: SampleCheck;
}

/** What the section measured: points that worked, and a reason per size that failed. */
export interface MatmulSection {
  /** Measured sizes, ascending. */
  readonly points: readonly MatmulPoint[];
  /** Rows for the table. */
  readonly rows: readonly Row[];
  /** "n=...: error" per failed size. */
  readonly failures: readonly string[];
}

/** TFLOP/s of an n-matmul taking `ms`. */
export function matmulTflops(n: number, ms: number): number {
  return ratePerSecond(matmulFlops(n), ms, 1e12);
}

async function measureSize(
  target: RocmTarget,
  sizes: RocmBenchSizes,
  n: number,
): Promise<{ point: MatmulPoint; rows: Row[] }> {
  const { backend, engine } = target;
  const aHost = signedValues(n * n, 1000 + n);
  const bHost = signedValues(n * n, 2000 + n);
  const a = await uploadTensor(backend, bytesOfF32(aHost), 'f32', [n, n]);
  const b = await uploadTensor(backend, bytesOfF32(bHost), 'f32', [n, n]);
  const op: Op<BoundTensor> = { op: 'matmul', a, b };
  const outputs: TensorSpec[] = [{ dtype: 'f32', shape: [n, n] }];
  let engineA: Tensor | undefined;
  let engineB: Tensor | undefined;
  try {
    const check = checkMatmulSamples(aHost, bHost, await runAndRead(backend, op, outputs), n, sizes.checkSamples);
    const timing = await timeBackendRuns(backend, [op], outputs, sizes.matmulReps, sizes.warmupCalls);
    engineA = engine.tensor(aHost, [n, n]);
    engineB = engine.tensor(bHost, [n, n]);
    const wall = await timeEngineRuns(
      engine,
      { op: 'matmul', a: engineA, b: engineB },
      sizes.matmulReps,
      sizes.warmupCalls,
    );
    const label = `f32 ${n}x${n}x${n}`;
    const rows: Row[] = [
      timingRow('matmul', `${label} kernel (events)`, timing.kernel, {
        tflops: matmulTflops(n, timing.kernel.median),
        check: describeCheck(check),
      }),
      timingRow('matmul', `${label} backend.run wall`, timing.wall, { tflops: matmulTflops(n, timing.wall.median) }),
      timingRow('matmul', `${label} engine {only:'rocm'} wall`, wall, { tflops: matmulTflops(n, wall.median) }),
    ];
    return { point: { n, kernel: timing.kernel, engine: wall, check }, rows };
  } finally {
    backend.free(a.buffer);
    backend.free(b.buffer);
    engineA?.dispose();
    engineB?.dispose();
  }
}

/** Measures every size of the sweep; a size that fails is reported and the rest go on. */
export async function measureMatmul(
  target: RocmTarget,
  sizes: RocmBenchSizes,
  onSize: (done: number) => void,
): Promise<MatmulSection> {
  const points: MatmulPoint[] = [];
  const rows: Row[] = [];
  const failures: string[] = [];
  for (const [i, n] of sizes.matmulSizes.entries()) {
    try {
      const measured = await measureSize(target, sizes, n);
      points.push(measured.point);
      rows.push(...measured.rows);
    } catch (error) {
      failures.push(`n=${n}: ${errorMessage(error)}`);
      rows.push({ section: 'matmul', measurement: `f32 ${n}x${n}x${n}`, error: errorMessage(error) });
    }
    onSize(i + 1);
  }
  return { points, rows, failures };
}
