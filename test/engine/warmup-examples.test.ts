// The warm-up examples BackgroundWarmUps keeps (engine-warmup.ts): how many, how large, which ones a profile saves
// (those whose GPU is the fastest measured), and that backends this engine does not have are passed over.
import { describe, expect, it, vi } from 'vitest';
import type { CapableBackend, Op, TensorSpec } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency } from '../scheduler/harness.ts';
import { BackendLifecycle } from '../../packages/core/src/engine-backends.ts';
import type { CallExecutor, PlannedCall } from '../../packages/core/src/engine-execution.ts';
import {
  BackgroundWarmUps,
  MAX_WARM_UP_EXAMPLES,
  MAX_WARM_UP_INPUT_BYTES,
} from '../../packages/core/src/engine-warmup.ts';
import { CostModel } from '../../packages/core/src/scheduler/cost-model.ts';
import { DecisionCache } from '../../packages/core/src/scheduler/decision-cache.ts';
import { Tracker } from '../../packages/core/src/scheduler/tracker.ts';
import { WarmthTracker } from '../../packages/core/src/scheduler/warmth.ts';
import { Telemetry } from '../../packages/core/src/telemetry/telemetry.ts';

const KEY = 'matmul|f32';

const matmul = (m: number, k: number, n: number): Op<TensorSpec> => ({
  op: 'matmul',
  a: { dtype: 'f32', shape: [m, k] },
  b: { dtype: 'f32', shape: [k, n] },
});

/**
 * Warm-ups over initialised simulated backends (names ending in 'cpu' are CPUs), with their cost model and telemetry.
 * No call is run here, so the executor is never reached.
 */
async function setup(names: readonly string[] = ['cpu', 'gpu']) {
  const clock = new ManualClock();
  const backends: CapableBackend[] = names.map(
    (name) =>
      new SimulatedBackend({
        name,
        kind: name.endsWith('cpu') ? 'cpu' : 'gpu',
        latencyMs: name.endsWith('cpu') ? cpuLatency : gpuLatency,
        clock,
      }),
  );
  const telemetry = new Telemetry(clock.clock);
  const costModel = new CostModel();
  const tracker = new Tracker(clock.clock);
  const decisions = new DecisionCache();
  const onChange = () => decisions.clear();
  const lifecycle = new BackendLifecycle({
    backends,
    clock: clock.clock,
    recoveryIntervalMs: 5000,
    telemetry,
    onChange,
    forceCpu: false,
  });
  await lifecycle.init();
  const warmUps = new BackgroundWarmUps({
    executor: {} as CallExecutor,
    lifecycle,
    costModel,
    tracker,
    decisions,
    telemetry,
    warmth: new WarmthTracker(),
    clock: clock.clock,
  });
  /** `backend` measured on matmul|f32 at `flops`, taking `ms` (its first run is the warm-up, not learned from). */
  const measure = (backend: string, flops: number, ms: number): void => {
    costModel.observe(KEY, backend, flops, ms, ms);
    costModel.observe(KEY, backend, flops, ms, ms);
  };
  return { warmUps, costModel, telemetry, tracker, measure };
}

const FLOPS = 2 * 256 ** 3;

describe('the examples kept for a profile', () => {
  it(`are at most MAX_WARM_UP_EXAMPLES (${MAX_WARM_UP_EXAMPLES}), the first ones noted`, async () => {
    const { warmUps, measure } = await setup();
    measure('gpu', FLOPS, 0.1);
    for (let i = 0; i < MAX_WARM_UP_EXAMPLES + 6; i++) warmUps.noteExample(`${KEY}#${i}`, 'gpu', matmul(i + 1, 8, 8));
    const kept = warmUps.exampleList();
    expect(kept).toHaveLength(MAX_WARM_UP_EXAMPLES);
    expect(kept.at(-1)?.op).toEqual(matmul(MAX_WARM_UP_EXAMPLES, 8, 8));
  });

  it('are kept when their inputs are MAX_WARM_UP_INPUT_BYTES (64 MiB) in all, not when they are more', async () => {
    const { warmUps, measure } = await setup();
    measure('gpu', FLOPS, 0.1);
    const exact = matmul(2048, 4096, 2048); // 32 MiB + 32 MiB
    const over = matmul(2048, 4096, 2049); // 4 x 4096 bytes more
    expect(4 * (2048 * 4096 + 4096 * 2048)).toBe(MAX_WARM_UP_INPUT_BYTES);
    warmUps.noteExample(`${KEY}#over`, 'gpu', over);
    warmUps.noteExample(`${KEY}#exact`, 'gpu', exact);
    expect(warmUps.exampleList().map((e) => e.op)).toEqual([exact]);
  });

  it('are saved when their GPU is the fastest measured, whichever backend was measured last', async () => {
    const { warmUps, measure } = await setup();
    measure('gpu', FLOPS, 0.1);
    measure('cpu', FLOPS, 0.9);
    warmUps.noteExample(KEY, 'gpu', matmul(256, 256, 256));
    expect(warmUps.exampleList().map((e) => e.backend)).toEqual(['gpu']);
  });

  it('are not saved when another backend measured first is as fast as their GPU', async () => {
    const { warmUps, measure } = await setup(['cpu', 'gpu', 'gpu2']);
    measure('gpu', FLOPS, 0.1);
    measure('gpu2', FLOPS, 0.1); // the same kind and profile: exactly as fast
    warmUps.noteExample(KEY, 'gpu2', matmul(256, 256, 256));
    expect(warmUps.exampleList()).toEqual([]);
  });

  it('pass over a measured backend this engine does not have', async () => {
    const { warmUps, measure } = await setup();
    measure('gone', FLOPS, 0.01);
    measure('gpu', FLOPS, 0.1);
    warmUps.noteExample(KEY, 'gpu', matmul(256, 256, 256));
    expect(warmUps.exampleList().map((e) => e.backend)).toEqual(['gpu']);
  });
});

describe('warm-ups on a backend this engine does not have', () => {
  it("a profile's example naming one is skipped", async () => {
    const { warmUps } = await setup();
    const run = vi.fn(async () => undefined);
    warmUps.startExamples([{ backend: 'gone', op: matmul(4, 4, 4) }], run);
    await warmUps.settle();
    expect(run).not.toHaveBeenCalled();
    expect(warmUps.inFlight).toBe(0);
  });

  it('a call warming up there does nothing: no failure, no notice', async () => {
    const { warmUps, telemetry, tracker } = await setup();
    const call = { op: matmul(4, 4, 4), spec: matmul(4, 4, 4), inputs: [], opKey: KEY } as unknown as PlannedCall;
    warmUps.start(call, 'gone');
    await warmUps.settle();
    expect(telemetry.noticeEvents().filter((n) => n.kind === 'warm-up-failed')).toEqual([]);
    expect(tracker.stats()).toEqual([]);
  });
});
