// Timing loops of the ROCm suite: kernel time as the backend reports it (events around the kernels) with the
// wall time of each awaited run, kernel time per launch of back-to-back launches (the memory-bound figures), and wall time per call through the engine with `{ only: 'rocm' }`. Outputs are
// freed after every run so memory stays flat. Also: uploads and downloads of f32 data, and table rows.
import {
  monotonicClock,
  sampleStats,
  type BoundTensor,
  type DType,
  type Engine,
  type Op,
  type Tensor,
  type TensorSpec,
  type SampleStats,
} from '@tandem/core';
import type { RocmBackend } from '@tandem/rocm';
import type { Row } from '../report.ts';

/** Kernel and wall time of repeated backend runs, ms. */
export interface KernelTiming {
  /** Time between the events around the kernels. */
  readonly kernel: SampleStats;
  /** From the call to the resolved promise (kernel finished, outputs resident). */
  readonly wall: SampleStats;
}

/** Runs ops[i % ops.length] warmup + reps times on the backend; times the last reps. */
export async function timeBackendRuns(
  backend: RocmBackend,
  ops: readonly Op<BoundTensor>[],
  outputs: readonly TensorSpec[],
  reps: number,
  warmup: number,
): Promise<KernelTiming> {
  const kernel: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < warmup + reps; i++) {
    const op = ops[i % ops.length];
    if (op === undefined) break;
    const t0 = monotonicClock();
    const result = await backend.run(op, outputs);
    const elapsed = monotonicClock() - t0;
    for (const b of result.outputs) backend.free(b);
    if (i < warmup) continue;
    kernel.push(result.kernelMs);
    wall.push(elapsed);
  }
  return { kernel: sampleStats(kernel), wall: sampleStats(wall) };
}

/**
 * Kernel time per launch, ms, from `blocks` blocks of `launches` back-to-back launches (ops rotated), after one
 * untimed block: what the kernels take without the host's launch gap that run()'s events include.
 */
export async function timeBackToBack(
  backend: RocmBackend,
  ops: readonly Op<BoundTensor>[],
  outputs: readonly TensorSpec[],
  blocks: number,
  launches: number,
): Promise<SampleStats> {
  await backend.timeLaunches(ops, outputs, launches);
  const perLaunch: number[] = [];
  for (let b = 0; b < blocks; b++) perLaunch.push(await backend.timeLaunches(ops, outputs, launches));
  return sampleStats(perLaunch);
}

/** Wall time per engine.run(op, { only: 'rocm' }), ms (the promise resolves with the result resident on the device). */
export async function timeEngineRuns(
  engine: Engine,
  op: Op<Tensor>,
  reps: number,
  warmup: number,
): Promise<SampleStats> {
  const wall: number[] = [];
  for (let i = 0; i < warmup + reps; i++) {
    const t0 = monotonicClock();
    const outputs = await engine.run(op, { strategy: { only: 'rocm' } });
    const elapsed = monotonicClock() - t0;
    for (const o of outputs) o.dispose();
    if (i >= warmup) wall.push(elapsed);
  }
  return sampleStats(wall);
}

/** Uploads bytes as a tensor of `dtype` and `shape`; returns the bound tensor. */
export async function uploadTensor(
  backend: RocmBackend,
  bytes: Uint8Array,
  dtype: DType,
  shape: readonly number[],
): Promise<BoundTensor> {
  const spec = { dtype, shape };
  return { ...spec, buffer: await backend.upload(bytes, spec) };
}

/** The bytes of a Float32Array (a view, no copy). */
export function bytesOfF32(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** Runs op once, downloads its first output as f32 and frees every output. */
export async function runAndRead(
  backend: RocmBackend,
  op: Op<BoundTensor>,
  outputs: readonly TensorSpec[],
): Promise<Float32Array> {
  const result = await backend.run(op, outputs);
  try {
    const first = result.outputs[0];
    if (first === undefined) return new Float32Array(0);
    const bytes = await backend.download(first);
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    return new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >>> 2);
  } finally {
    for (const b of result.outputs) backend.free(b);
  }
}

/** A table row of timings: median/min/max/p99 (in `unit`, scaled from ms by `perMs`), reps and extra fields. */
export function timingRow(
  section: string,
  measurement: string,
  timing: SampleStats,
  extra: Row = {},
  unit: 'ms' | 'us' = 'ms',
): Row {
  const scale = unit === 'ms' ? 1 : 1e3;
  return {
    section,
    measurement,
    unit,
    median: timing.median * scale,
    min: timing.min * scale,
    max: timing.max * scale,
    p99: timing.p99 * scale,
    reps: timing.count,
    ...extra,
  };
}
