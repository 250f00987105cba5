// Issue #4 figure 5: CPU this Node process spends while it waits on a ~100 ms GPU job (one matmul through the
// engine on resident inputs, sized from its measured time): JS
// main-thread CPU from /proc (its mainThreadCpuMs helper) and whole-process CPU; on SwiftShader the process figure
// includes the software GPU's own threads, so the target is judged on the main thread. Only engine.run is timed:
// reading a large result back is copying, not waiting (on the H100 a 100 ms matmul has a 300+ MB result).
import type { Engine, Tensor, SampleStats } from '@tandem/core';
import { monotonicClock, sampleStats } from '@tandem/core';
import { mainThreadCpuMs } from '../../../../packages/webgpu/src/test-support/thread-cpu.ts';
import { CHECK_SAMPLES, randomMatrix } from './accounting.ts';
import { checkMatmulSamples, describeCheck } from '../sampled-check.ts';
import { engineCall, runOnlyCall, type EngineCall, type SingleOutputOp } from './engine-call.ts';

/** The waiting cost. */
export interface WaitCost {
  /** Matrix side of the job. */
  readonly n: number;
  /** Wall time of the job, ms. */
  readonly wall: SampleStats;
  /** JS main-thread CPU / wall, % of a core (undefined where /proc is unreadable). */
  readonly mainThreadPercent: SampleStats | undefined;
  /** Whole-process CPU / wall, % of a core. */
  readonly processPercent: SampleStats;
}

/** Side of a matmul taking about `targetMs` at `flopsPerMs`, a multiple of 64 within [64, maxN]. */
export function matmulSideFor(targetMs: number, flopsPerMs: number, maxN: number): number {
  const n = Math.round(Math.cbrt((targetMs * flopsPerMs) / 2) / 64) * 64;
  return Math.max(64, Math.min(maxN - (maxN % 64), n));
}

/** One resident square input and its timed matmul call. */
interface WaitJob {
  readonly n: number;
  readonly a: Float32Array;
  readonly tensor: Tensor;
  readonly call: EngineCall;
  /** The same call without reading the result: what is timed. */
  readonly wait: () => Promise<number>;
}

function waitJob(engine: Engine, n: number): WaitJob {
  const a = randomMatrix(n * n, 3);
  const tensor = engine.tensor(a, [n, n]);
  const op: SingleOutputOp = { op: 'matmul', a: tensor, b: tensor };
  return { n, a, tensor, call: engineCall(engine, op, 'webgpu'), wait: runOnlyCall(engine, op, 'webgpu') };
}

/** Uploads and checks the job's first result, then returns the wall time of a second call without read-back, ms. */
async function warmJob(job: WaitJob): Promise<number> {
  const check = checkMatmulSamples(job.a, job.a, (await job.call()).values, job.n, CHECK_SAMPLES);
  if (!check.ok) throw new Error(`matmul n=${job.n} gave wrong values: ${describeCheck(check)}`);
  return job.wait();
}

/**
 * Times `reps` waits on one matmul through the engine with { only: 'webgpu' }, sized to take about `targetMs`:
 * starting from side `n`, resized once from its measured time (the sweep's rate drifts on a shared machine).
 */
export async function measureWaitCost(
  engine: Engine,
  n: number,
  targetMs: number,
  maxN: number,
  reps = 5,
): Promise<WaitCost> {
  let job = waitJob(engine, n);
  try {
    const firstMs = await warmJob(job);
    const resized = matmulSideFor(targetMs, (2 * n ** 3) / firstMs, maxN);
    if (Math.abs(Math.log(firstMs / targetMs)) > Math.log(1.5) && resized !== n) {
      job.tensor.dispose();
      job = waitJob(engine, resized);
      await warmJob(job);
    }
    const wall: number[] = [];
    const main: number[] = [];
    const proc: number[] = [];
    for (let r = 0; r < reps; r++) {
      const cpu0 = process.cpuUsage();
      const main0 = mainThreadCpuMs();
      const t0 = monotonicClock();
      await job.wait();
      const ms = monotonicClock() - t0;
      const main1 = mainThreadCpuMs();
      const cpu = process.cpuUsage(cpu0);
      wall.push(ms);
      proc.push(((cpu.user + cpu.system) / 1000 / ms) * 100);
      if (main0 !== undefined && main1 !== undefined) main.push(((main1 - main0) / ms) * 100);
    }
    return {
      n: job.n,
      wall: sampleStats(wall),
      mainThreadPercent: main.length > 0 ? sampleStats(main) : undefined,
      processPercent: sampleStats(proc),
    };
  } finally {
    job.tensor.dispose();
  }
}
