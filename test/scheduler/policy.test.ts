// The scheduler's policies beside the cost model: gpuMinSpeedup (a GPU must be clearly faster) and gpuMinBatchSize per
// op (and per op and dtype) over the global default; and the checks of the scheduler settings.
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, type Engine, type Explanation } from '@tandem/core';
import { simulatedEngine, square } from './harness.ts';

/** Trains both backends on square matmuls of these sizes (the harness: GPU 2.0x faster at 160, 7.2x at 256). */
async function train(engine: Engine, sizes: readonly number[]): Promise<void> {
  for (let round = 0; round < 30; round++)
    for (const n of sizes) (await engine.matmul(square(engine, n), square(engine, n))).dispose();
}

function explainSquare(engine: Engine, n: number): Explanation {
  const x = square(engine, n);
  return engine.explain({ op: 'matmul', a: x, b: x });
}

describe('gpuMinSpeedup', () => {
  it('keeps an op on the CPU unless the GPU is estimated that many times faster, and says so', async () => {
    const { engine, gpu } = await simulatedEngine({ scheduler: { gpuMinSpeedup: 3 } });
    await train(engine, [160, 256]);
    const close = explainSquare(engine, 160);
    expect(close.selection.backend).toBe('cpu');
    const speedup = (close.costsMs['cpu'] ?? 0) / (close.costsMs['gpu'] ?? Infinity);
    expect(speedup).toBeGreaterThan(1.5); // the GPU is faster here, only not by 3x
    expect(close.selection.reason).toEqual({ kind: 'below-min-speedup', gpu: 'gpu', speedup, minSpeedup: 3 });
    expect(explainSquare(engine, 256).selection).toMatchObject({
      backend: 'gpu',
      reason: { kind: 'cost-model', measured: true },
    });
    // In a loop of the close size, the GPU gets only the exploration calls (one per exploreEvery = 50 decisions).
    const before = gpu.calls;
    for (let i = 0; i < 100; i++) (await engine.matmul(square(engine, 160), square(engine, 160))).dispose();
    expect(gpu.calls - before).toBeLessThanOrEqual(2);
    const reasons = new Set(
      engine.telemetry
        .opEvents()
        .slice(-100)
        .map((e) => e.reason.kind),
    );
    expect([...reasons].every((kind) => kind === 'below-min-speedup' || kind === 'exploring')).toBe(true);
  });

  it('is off by default: a GPU faster by any margin wins', async () => {
    const { engine } = await simulatedEngine();
    await train(engine, [160]);
    expect(explainSquare(engine, 160).selection.backend).toBe('gpu');
  });
});

describe('gpuMinBatchSize per op', () => {
  /** A matmul of batch (rows of a) 32 that the GPU does 1.8x faster than the CPU, copies included (by the priors). */
  function batch32(engine: Engine): Explanation {
    return engine.explain({
      op: 'matmul',
      a: engine.tensor(new Float32Array(32 * 2048), [32, 2048]),
      b: square(engine, 2048),
    });
  }

  // No exploration of the CPU (its prior is within 2x of the GPU's): the decision shows the cost model's pick.
  const noExploring = { exploreMaxRatio: 1 };

  it('overrides the global default for an op, and per op and dtype over that', async () => {
    const global = (await simulatedEngine()).engine;
    expect(batch32(global).selection).toMatchObject({
      backend: 'cpu',
      reason: { kind: 'below-min-batch', batch: 32, minBatch: 64 },
    });
    const perOp = (
      await simulatedEngine({ scheduler: { ...noExploring, gpuMinBatchSizeByOp: { matmul: 16, cosineSimilarity: 1 } } })
    ).engine;
    // The GPU is the cost model's pick; the CPU serves while it warms up.
    expect(batch32(perOp).selection).toMatchObject({ backend: 'cpu', reason: { kind: 'warming', backend: 'gpu' } });
    const perDtype = (
      await simulatedEngine({
        scheduler: { gpuMinBatchSize: 8, gpuMinBatchSizeByOp: { matmul: 16, 'matmul|f32': 48 } },
      })
    ).engine;
    expect(batch32(perDtype).selection).toMatchObject({
      backend: 'cpu',
      reason: { kind: 'below-min-batch', batch: 32, minBatch: 48 },
    });
    const otherDtype = (await simulatedEngine({ scheduler: { gpuMinBatchSizeByOp: { 'matmul|f16': 1 } } })).engine;
    expect(batch32(otherDtype).selection.reason).toMatchObject({ kind: 'below-min-batch', minBatch: 64 });
  });

  it('is fixed when the engine is created: later edits to the object the caller passed change nothing', async () => {
    const byOp: Record<string, number> = { matmul: 48 };
    const { engine } = await simulatedEngine({ scheduler: { gpuMinBatchSizeByOp: byOp } });
    byOp['matmul'] = 16;
    byOp['matmul|f32'] = 16;
    expect(batch32(engine).selection.reason).toMatchObject({ kind: 'below-min-batch', batch: 32, minBatch: 48 });
  });
});

describe('scheduler settings', () => {
  it('refuse unknown keys and values out of range, naming them', async () => {
    const refusal = async (scheduler: object): Promise<unknown> =>
      simulatedEngine({ scheduler }).then(
        () => undefined,
        (e: unknown) => e,
      );
    const cases: ReadonlyArray<readonly [object, string, unknown, string]> = [
      [{ gpuMinSpeedup: 0.5 }, 'createEngine.scheduler.gpuMinSpeedup', 0.5, 'must be a finite number >= 1'],
      [{ gpuMinBatchSize: 1.5 }, 'createEngine.scheduler.gpuMinBatchSize', 1.5, 'must be an integer >= 0'],
      [
        { gpuMinSpeedUp: 2 },
        'createEngine.scheduler.gpuMinSpeedUp',
        2,
        expect.stringMatching(/^is not a scheduler setting \(settings: .*gpuMinSpeedup/),
      ],
      [
        { gpuMinBatchSizeByOp: { matmull: 1 } },
        'createEngine.scheduler.gpuMinBatchSizeByOp',
        'matmull',
        expect.stringMatching(/^names no op \(ops: .*matmul/),
      ],
      [
        { gpuMinBatchSizeByOp: { 'matmul|f64': 1 } },
        'createEngine.scheduler.gpuMinBatchSizeByOp',
        'matmul|f64',
        expect.stringMatching(/^names no dtype 'f64'/),
      ],
      [
        { gpuMinBatchSizeByOp: { 'matmul|': 1 } },
        'createEngine.scheduler.gpuMinBatchSizeByOp',
        'matmul|',
        "must be '<op>' or '<op>|<dtype>[+<dtype>]'",
      ],
      [
        { gpuMinBatchSizeByOp: { matmul: -1 } },
        'createEngine.scheduler.gpuMinBatchSizeByOp.matmul',
        -1,
        'must be an integer >= 0',
      ],
      [
        { gpuMinBatchSizeByOp: [1] },
        'createEngine.scheduler.gpuMinBatchSizeByOp',
        [1],
        expect.stringMatching(/^must be an object/),
      ],
    ];
    for (const [scheduler, argument, value, limit] of cases) {
      const error = await refusal(scheduler);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument, value, limit });
    }
  });
});
