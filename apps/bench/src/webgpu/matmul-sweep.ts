// Issue #4 figures 1 and 2: f32 matmul n x n on Tandem's WebGPU backend through the engine ({ only: 'webgpu' }:
// kernel time from timestamp-query via the backend's RunResult, wall time of run + read) against
// @tensorflow/tfjs-backend-webgpu on the same Dawn GPU (kernelMs from tf.time, wall of matMul + data()).
// Every measured result is checked on sampled entries against f64 dot products.
import { sampleStats } from '@tandem/core';
import type { Engine, SampleStats } from '@tandem/core';
import { progress } from '../report.ts';
import { CHECK_SAMPLES, matmulFlop, randomMatrix, tflops } from './accounting.ts';
import { checkMatmulSamples, type SampleCheck } from '../sampled-check.ts';
import { alternate, ROUNDS, type AlternatingCall } from './alternate.ts';
import { repsFor, type WebGpuBenchConfig } from './config.ts';
import { engineCall } from './engine-call.ts';
import { attempt, type Outcome } from './guard.ts';
import type { TfjsMatmulCase, TfjsWebGpu } from './tfjs-webgpu.ts';

/** One engine's figures at one size. */
export interface EngineFigures {
  /** Kernel time, ms (undefined when the engine reports none). */
  readonly kernel: SampleStats | undefined;
  /** Wall time of a call with the result read back, ms. */
  readonly wall: SampleStats;
  /** Sampled correctness check of the first result. */
  readonly check: SampleCheck;
}

/** The figures of one size. */
export interface MatmulSize {
  /** Matrix side. */
  readonly n: number;
  /** Tandem's WebGPU backend, or why not. */
  readonly ours: Outcome<EngineFigures>;
  /** tfjs-backend-webgpu, or why not. */
  readonly tfjs: Outcome<EngineFigures>;
}

/** TFLOP/s of a median time at size n. */
export function matmulTflops(n: number, s: SampleStats | undefined): number {
  return s === undefined ? NaN : tflops(matmulFlop(n), s.median);
}

async function measureSize(
  engine: Engine,
  tfjs: Outcome<TfjsWebGpu>,
  n: number,
  config: WebGpuBenchConfig,
): Promise<MatmulSize> {
  const a = randomMatrix(n * n, n);
  const b = randomMatrix(n * n, n + 1);
  const ta = engine.tensor(a, [n, n]);
  const tb = engine.tensor(b, [n, n]);
  const ours = engineCall(engine, { op: 'matmul', a: ta, b: tb }, 'webgpu');
  let tfjsCase: TfjsMatmulCase | undefined;
  try {
    const calls: AlternatingCall[] = [];
    const oursWall: number[] = [];
    const oursKernel: number[] = [];
    const oursReady = await attempt(`webgpu matmul n=${n}`, config.rowTimeoutMs, async () => {
      const first = await ours(); // uploads the inputs
      const check = checkMatmulSamples(a, b, first.values, n, CHECK_SAMPLES);
      const second = await ours();
      calls.push({
        reps: repsFor(config, second.wallMs),
        call: async () => {
          const t = await ours();
          oursWall.push(t.wallMs);
          oursKernel.push(t.kernelMs);
        },
      });
      return check;
    });
    const tfjsWall: number[] = [];
    const tfjsKernel: number[] = [];
    const tfjsReady = !tfjs.ok
      ? tfjs
      : await attempt(`tfjs-webgpu matmul n=${n}`, config.rowTimeoutMs, async () => {
          const c = tfjs.value.matmul(n, a, b);
          tfjsCase = c;
          const first = await c.wall();
          const check = checkMatmulSamples(a, b, first.values, n, CHECK_SAMPLES);
          const second = await c.wall();
          await c.kernel();
          const reps = repsFor(config, second.wallMs);
          calls.push({
            reps,
            call: async () => {
              tfjsWall.push((await c.wall()).wallMs);
            },
          });
          calls.push({
            reps,
            call: async () => {
              const k = await c.kernel();
              if (k !== undefined) tfjsKernel.push(k);
            },
          });
          return check;
        });
    let blocks = 0;
    const timed = await attempt(`matmul n=${n} timing`, config.rowTimeoutMs * 2, () =>
      alternate(calls, () => progress(`webgpu matmul n=${n}`, ++blocks, calls.length * ROUNDS)),
    );
    const figures = (ready: Outcome<SampleCheck>, wall: number[], kernel: number[]): Outcome<EngineFigures> => {
      if (!ready.ok) return ready;
      if (!timed.ok && wall.length === 0) return timed;
      return {
        ok: true,
        value: {
          kernel: kernel.length > 0 ? sampleStats(kernel) : undefined,
          wall: sampleStats(wall),
          check: ready.value,
        },
      };
    };
    return { n, ours: figures(oursReady, oursWall, oursKernel), tfjs: figures(tfjsReady, tfjsWall, tfjsKernel) };
  } finally {
    tfjsCase?.dispose();
    ta.dispose();
    tb.dispose();
  }
}

/** Measures every size of config.matmulSizes, ours and tfjs side by side. */
export async function matmulSweep(
  engine: Engine,
  tfjs: Outcome<TfjsWebGpu>,
  config: WebGpuBenchConfig,
): Promise<MatmulSize[]> {
  const sizes: MatmulSize[] = [];
  for (const n of config.matmulSizes) sizes.push(await measureSize(engine, tfjs, n, config));
  return sizes;
}
