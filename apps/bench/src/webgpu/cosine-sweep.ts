// Issue #4 figure 4: cosine similarity of one 768-d query against N resident targets on Tandem's WebGPU backend
// through the engine ({ only: 'webgpu' }); effective bandwidth = bytes of targets read / kernel time. Targets past
// one storage binding run as several dispatches of one submission; N is capped at what one buffer holds (the
// backend refuses more); a capped row says so.
import { sampleStats } from '@tandem/core';
import type { Engine, SampleStats } from '@tandem/core';
import { progress } from '../report.ts';
import { CHECK_SAMPLES, cosineTargetBytes, randomMatrix, terabytesPerSecond } from './accounting.ts';
import { checkCosineSamples, type SampleCheck } from '../sampled-check.ts';
import { COSINE_DIM, repsFor, type WebGpuBenchConfig } from './config.ts';
import { engineCall } from './engine-call.ts';
import { attempt, type Outcome } from './guard.ts';

/** Figures of one target count. */
export interface CosineFigures {
  /** Targets scanned. */
  readonly count: number;
  /** The count asked for, when the buffer size limit capped it. */
  readonly requested: number;
  /** Kernel time, ms. */
  readonly kernel: SampleStats;
  /** Wall time of run + read, ms. */
  readonly wall: SampleStats;
  /** Bytes of targets read per call. */
  readonly bytes: number;
  /** Sampled check of the first result. */
  readonly check: SampleCheck;
}

/** Effective bandwidth of a row, TB/s (bytes of targets / median kernel time). */
export function cosineTbps(f: CosineFigures): number {
  return terabytesPerSecond(f.bytes, f.kernel.median);
}

async function measureCount(
  engine: Engine,
  requested: number,
  maxBufferBytes: number,
  config: WebGpuBenchConfig,
): Promise<CosineFigures> {
  const count = Math.min(requested, Math.floor(maxBufferBytes / (COSINE_DIM * 4)));
  const query = randomMatrix(COSINE_DIM, 7);
  const targets = randomMatrix(count * COSINE_DIM, count);
  const tq = engine.tensor(query, [COSINE_DIM]);
  const tt = engine.tensor(targets, [count, COSINE_DIM]);
  try {
    const call = engineCall(engine, { op: 'cosineSimilarity', queries: tq, targets: tt }, 'webgpu');
    const first = await call(); // uploads the targets
    const check = checkCosineSamples(query, targets, first.values, COSINE_DIM, CHECK_SAMPLES);
    const reps = repsFor(config, (await call()).wallMs);
    const wall: number[] = [];
    const kernel: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t = await call();
      wall.push(t.wallMs);
      kernel.push(t.kernelMs);
    }
    return {
      count,
      requested,
      kernel: sampleStats(kernel),
      wall: sampleStats(wall),
      bytes: cosineTargetBytes(count, COSINE_DIM),
      check,
    };
  } finally {
    tq.dispose();
    tt.dispose();
  }
}

/** Measures every count of config.cosineSizes; each failure is kept as its reason. */
export async function cosineSweep(
  engine: Engine,
  maxBufferBytes: number,
  config: WebGpuBenchConfig,
): Promise<Array<Outcome<CosineFigures>>> {
  // Largest first, on the freshest device: allocations and frees of earlier sizes slow later large reads (see
  // probes/webgpu-cosine-probe.mjs --churn). Rows are returned in config order.
  const order = [...config.cosineSizes.entries()].reverse();
  const byIndex = new Map<number, Outcome<CosineFigures>>();
  for (const [done, [i, requested]] of order.entries()) {
    byIndex.set(
      i,
      await attempt(`cosine N=${requested}`, config.rowTimeoutMs, () =>
        measureCount(engine, requested, maxBufferBytes, config),
      ),
    );
    progress('webgpu cosine', done + 1, config.cosineSizes.length);
  }
  return [...config.cosineSizes.keys()].flatMap((i) => {
    const row = byIndex.get(i);
    return row === undefined ? [] : [row];
  });
}
