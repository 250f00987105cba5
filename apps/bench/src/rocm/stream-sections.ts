// Sections 3 and 4: the memory-bound kernels. A scale over scaleCount f32 (read + write) is the measured streaming
// peak; Q4_0 / Q8_0 mat-vec (weights rotated over several copies so the L2 cache cannot hold them) and cosine
// similarity of one query against resident targets are measured against it. Kernel time per launch of back-to-back
// launches (timeBackToBack: a mat-vec of microseconds timed alone also carries the host's launch gap); each row
// also gives the single-run event time.
import type { BoundTensor, Op, TensorSpec, SampleStats } from '@tandem/core';
import type { Row } from '../report.ts';
import { randomBlockMatrix, signedValues } from './data.ts';
import { cosineTargetBytes, quantizedMatvecBytes, ratePerSecond, scaleBytes, type BlockFormat } from './figures.ts';
import { bytesOfF32, runAndRead, timeBackToBack, timeBackendRuns, timingRow, uploadTensor } from './measure.ts';
import {
  checkCosineSamples,
  checkElementwise,
  checkMatvecSamples,
  describeCheck,
  type SampleCheck,
} from '../sampled-check.ts';
import { RocmBackend } from '@tandem/rocm';
import { scale } from '@tandem/reference';
import type { RocmTarget } from './setup.ts';
import type { RocmBenchSizes } from './sizes.ts';

/** One memory-bound measurement. */
export interface StreamFigure {
  /** Short name: scale, q4_0, q8_0, cosine. */
  readonly name: string;
  /** Bytes counted per call (what the rate divides). */
  readonly bytes: number;
  /** FLOPs per call (for the roofline's x axis). */
  readonly flops: number;
  /** Kernel time per launch of back-to-back launches, ms. */
  readonly kernel: SampleStats;
  /** GB/s at the median kernel time. */
  readonly gbps: number;
  /** Sampled check of one result. */
  readonly check: SampleCheck;
  /** The table row. */
  readonly row: Row;
}

function figure(
  name: string,
  measurement: string,
  bytes: number,
  flops: number,
  kernel: SampleStats,
  singleRun: SampleStats,
  check: SampleCheck,
): StreamFigure {
  const gbps = ratePerSecond(bytes, kernel.median, 1e9);
  const row = timingRow('bandwidth', measurement, kernel, {
    bytesPerCall: bytes,
    gbps,
    singleRunMs: singleRun.median,
    check: describeCheck(check),
  });
  return { name, bytes, flops, kernel, gbps, check, row };
}

/** Back-to-back launches per timed block (the median over blocks is the figure). */
const LAUNCHES_PER_BLOCK = 8;

/** The 1 GiB scale (x * 1.5): the streaming peak every fraction is taken of. */
export async function measureScale(target: RocmTarget, sizes: RocmBenchSizes): Promise<StreamFigure> {
  const { backend } = target;
  const count = sizes.scaleCount;
  const host = signedValues(count, 31);
  const x = await uploadTensor(backend, bytesOfF32(host), 'f32', [count]);
  try {
    const op: Op<BoundTensor> = { op: 'scale', x, factor: 1.5 };
    const outputs: TensorSpec[] = [{ dtype: 'f32', shape: [count] }];
    const check = checkElementwise(
      await runAndRead(backend, op, outputs),
      [host],
      (x) => scale(x, 1.5),
      sizes.checkSamples * 16,
    );
    const single = await timeBackendRuns(backend, [op], outputs, sizes.streamReps, sizes.warmupCalls);
    const kernel = await timeBackToBack(backend, [op], outputs, sizes.streamReps, LAUNCHES_PER_BLOCK);
    const mib = (count * 4) / 2 ** 20;
    return figure(
      'scale',
      `scale f32 ${mib >= 1 ? `${mib} MiB` : `${count * 4} B`} (read + write) kernel`,
      scaleBytes(count),
      count,
      kernel,
      single.kernel,
      check,
    );
  } finally {
    backend.free(x.buffer);
  }
}

/**
 * Scaled error allowed for the opt-in int8 activations: x is rounded to int8 per 32 values, so an output may be off
 * by up to sum_b max|x_b| / 254 * sum_b |w|, about 1/127 of the magnitude (the backend's documented bound).
 */
const Q8_ACTIVATION_TOLERANCE = 1e-2;

/**
 * Mat-vec x [1, k] . W^T for W [n, k] in `format`, weights rotated over weightSets copies. With activations 'q8' it
 * runs on a second backend over the same addon opened with the opt-in int8 activations.
 */
export async function measureMatvec(
  target: RocmTarget,
  sizes: RocmBenchSizes,
  format: BlockFormat,
  activations: 'f32' | 'q8' = 'f32',
): Promise<StreamFigure> {
  if (activations === 'f32') return matvecOn(target.backend, sizes, format, activations);
  const backend = new RocmBackend({ addonPath: target.addonPath, quantizedActivations: 'q8' });
  try {
    const init = await backend.init();
    if (!init.ok) throw new Error(`the backend with int8 activations did not start: ${init.reason}`);
    return await matvecOn(backend, sizes, format, activations);
  } finally {
    await backend.dispose();
  }
}

async function matvecOn(
  backend: RocmBackend,
  sizes: RocmBenchSizes,
  format: BlockFormat,
  activations: 'f32' | 'q8',
): Promise<StreamFigure> {
  const [n, k] = [sizes.matvecRows, sizes.matvecCols];
  const xHost = signedValues(k, 41);
  const wBytes = randomBlockMatrix(format, n, k, format === 'q4_0' ? 43 : 47);
  const x = await uploadTensor(backend, bytesOfF32(xHost), 'f32', [1, k]);
  const weights: BoundTensor[] = [];
  try {
    for (let s = 0; s < sizes.weightSets; s++) weights.push(await uploadTensor(backend, wBytes, format, [n, k]));
    const ops: Op<BoundTensor>[] = weights.map((w) => ({ op: 'quantizedMatmul', x, w }));
    const outputs: TensorSpec[] = [{ dtype: 'f32', shape: [1, n] }];
    const first = ops[0];
    if (first === undefined) throw new Error('no weight sets');
    const tolerance = activations === 'q8' ? Q8_ACTIVATION_TOLERANCE : undefined;
    const check = checkMatvecSamples(
      format,
      wBytes,
      xHost,
      await runAndRead(backend, first, outputs),
      n,
      k,
      sizes.checkSamples,
      tolerance,
    );
    const single = await timeBackendRuns(backend, ops, outputs, sizes.matvecReps, sizes.warmupCalls);
    const kernel = await timeBackToBack(backend, ops, outputs, sizes.matvecReps, LAUNCHES_PER_BLOCK);
    const how = activations === 'q8' ? ', int8 activations (opt-in), x rounding kernel included' : '';
    const measurement = `${format} mat-vec x[1,${k}] . W[${n},${k}] kernel (${sizes.weightSets} weight copies rotated${how})`;
    return figure(
      activations === 'q8' ? `${format}+q8x` : format,
      measurement,
      quantizedMatvecBytes(format, n, k),
      2 * n * k,
      kernel,
      single.kernel,
      check,
    );
  } finally {
    backend.free(x.buffer);
    for (const w of weights) backend.free(w.buffer);
  }
}

/** Cosine similarity of one query [dim] against resident targets [count, dim]; bytes = the targets'. */
export async function measureCosine(target: RocmTarget, sizes: RocmBenchSizes): Promise<StreamFigure> {
  const { backend } = target;
  const [count, dim] = [sizes.cosineTargets, sizes.cosineDim];
  const targetsHost = signedValues(count * dim, 51);
  const queryHost = signedValues(dim, 53);
  const targets = await uploadTensor(backend, bytesOfF32(targetsHost), 'f32', [count, dim]);
  const queries = await uploadTensor(backend, bytesOfF32(queryHost), 'f32', [dim]);
  try {
    const op: Op<BoundTensor> = { op: 'cosineSimilarity', queries, targets };
    const outputs: TensorSpec[] = [{ dtype: 'f32', shape: [1, count] }];
    const check = checkCosineSamples(
      queryHost,
      targetsHost,
      await runAndRead(backend, op, outputs),
      dim,
      sizes.checkSamples,
    );
    const single = await timeBackendRuns(backend, [op], outputs, sizes.streamReps, sizes.warmupCalls);
    const kernel = await timeBackToBack(backend, [op], outputs, sizes.streamReps, LAUNCHES_PER_BLOCK);
    return figure(
      'cosine',
      `cosine ${dim}-d x ${count} resident targets, 1 query kernel`,
      cosineTargetBytes(count, dim),
      2 * count * dim,
      kernel,
      single.kernel,
      check,
    );
  } finally {
    backend.free(targets.buffer);
    backend.free(queries.buffer);
  }
}
