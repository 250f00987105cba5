// Section 5: per-call overhead from JS to a finished tiny kernel (an add of a few elements): direct backend.run
// (wall, and the kernel time its events saw) and engine.run with { only: 'rocm' } on resident inputs. In us.
import type { BoundTensor, Op, Tensor, TensorSpec, SampleStats } from '@tandem/core';
import { add } from '@tandem/reference';
import type { Row } from '../report.ts';
import { signedValues } from './data.ts';
import { bytesOfF32, runAndRead, timeBackendRuns, timeEngineRuns, timingRow, uploadTensor } from './measure.ts';
import { checkElementwise, describeCheck, type SampleCheck } from '../sampled-check.ts';
import type { RocmTarget } from './setup.ts';
import type { RocmBenchSizes } from './sizes.ts';

/** What the section measured, ms. */
export interface OverheadSection {
  /** Wall time of an awaited backend.run. */
  readonly backendWall: SampleStats;
  /** The events' kernel time of the same runs. */
  readonly backendKernel: SampleStats;
  /** Wall time of an awaited engine.run({ only: 'rocm' }). */
  readonly engineWall: SampleStats;
  /** The add's result checked exactly. */
  readonly check: SampleCheck;
  /** Table rows (us). */
  readonly rows: readonly Row[];
}

/** Measures the overhead of a tiny add both ways. */
export async function measureOverhead(target: RocmTarget, sizes: RocmBenchSizes): Promise<OverheadSection> {
  const { backend, engine } = target;
  const count = sizes.overheadElements;
  const aHost = signedValues(count, 61);
  const bHost = signedValues(count, 67);
  const a = await uploadTensor(backend, bytesOfF32(aHost), 'f32', [count]);
  const b = await uploadTensor(backend, bytesOfF32(bHost), 'f32', [count]);
  let engineA: Tensor | undefined;
  let engineB: Tensor | undefined;
  try {
    const op: Op<BoundTensor> = { op: 'add', a, b };
    const outputs: TensorSpec[] = [{ dtype: 'f32', shape: [count] }];
    const check = checkElementwise(await runAndRead(backend, op, outputs), [aHost, bHost], add, count);
    const direct = await timeBackendRuns(backend, [op], outputs, sizes.overheadCalls, sizes.warmupCalls * 10);
    engineA = engine.tensor(aHost, [count]);
    engineB = engine.tensor(bHost, [count]);
    const engineWall = await timeEngineRuns(
      engine,
      { op: 'add', a: engineA, b: engineB },
      sizes.overheadCalls,
      sizes.warmupCalls * 10,
    );
    const label = `add f32 [${count}]`;
    const rows: Row[] = [
      timingRow('overhead', `${label} backend.run wall`, direct.wall, { check: describeCheck(check) }, 'us'),
      timingRow('overhead', `${label} kernel (events) of those runs`, direct.kernel, {}, 'us'),
      timingRow('overhead', `${label} engine {only:'rocm'} wall`, engineWall, {}, 'us'),
    ];
    return { backendWall: direct.wall, backendKernel: direct.kernel, engineWall, check, rows };
  } finally {
    backend.free(a.buffer);
    backend.free(b.buffer);
    engineA?.dispose();
    engineB?.dispose();
  }
}
