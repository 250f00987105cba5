// The engine's side of its telemetry, as a caller reads it: the `telemetry` option's refusal in words, the kind of a
// backend name the engine does not have, a degraded GPU counted as able to take work, and which cost-model key an op
// id's GPU speedup is read from.
import { describe, expect, it } from 'vitest';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { BackendLifecycle } from '../../packages/core/src/engine-backends.ts';
import { Engine } from '../../packages/core/src/engine.ts';
import { engineTelemetryView, telemetryLevelOf } from '../../packages/core/src/engine-telemetry.ts';
import { InvalidArgumentError } from '../../packages/core/src/errors.ts';
import type { Op, TensorSpec } from '../../packages/core/src/ops.ts';
import { CostModel } from '../../packages/core/src/scheduler/cost-model.ts';
import { Telemetry } from '../../packages/core/src/telemetry/telemetry.ts';

/** CPU: 3 us + 40 GFLOP/s; GPU: 100 us + 2 TFLOP/s (as test/scheduler/harness.ts). */
const cpuMs = (flops: number): number => 0.003 + flops / 4e7;
const gpuMs = (flops: number): number => 0.1 + flops / 2e9;

/** A simulated cpu and gpu on one manual clock; `gpuMsOf` replaces the GPU's latency. */
async function engineOf(
  options: { gpuMsOf?: (op: Op<TensorSpec>, flops: number) => number; forceCpu?: boolean } = {},
): Promise<{ engine: Engine; gpu: SimulatedBackend }> {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({
    name: 'cpu',
    kind: 'cpu',
    priority: 10,
    clock,
    latencyMs: (_o, w) => cpuMs(w.flops),
  });
  const gpuMsOf = options.gpuMsOf ?? ((_op, flops) => gpuMs(flops));
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    priority: 20,
    clock,
    compilesOnFirstRun: false,
    latencyMs: (op, w) => gpuMsOf(op, w.flops),
  });
  const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock, forceCpu: options.forceCpu ?? false });
  return { engine, gpu };
}

describe('the telemetry option', () => {
  it('refuses anything but true, false, events or counters, saying in words what it must be', () => {
    const error = (() => {
      try {
        return telemetryLevelOf('verbose');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      argument: 'createEngine.telemetry',
      value: 'verbose',
      limit: "must be true or 'events' (every attempt kept in a ring), or false or 'counters' (counters only)",
    });
  });
});

describe("the engine's telemetry view", () => {
  it('gives no kind for a backend name the engine does not have, and the kind of one it has', () => {
    const clock = new ManualClock();
    const telemetry = new Telemetry(clock.clock);
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const lifecycle = new BackendLifecycle({
      backends: [cpu],
      clock: clock.clock,
      recoveryIntervalMs: 1000,
      telemetry,
      onChange: () => undefined,
      forceCpu: false,
    });
    const view = engineTelemetryView(() => ({ lifecycle, costModel: new CostModel() }));
    expect(view.kindOf('cpu')).toBe('cpu');
    expect(view.kindOf('webgpu')).toBeUndefined();
  });

  it('counts a degraded GPU as able to take work', async () => {
    const { engine, gpu } = await engineOf();
    gpu.health = () => ({ state: 'degraded', reason: 'thermal throttling' });
    expect(engine.telemetry.isGpuAvailable()).toBe(true);
    gpu.health = () => ({ state: 'unhealthy', reason: 'device lost' });
    expect(engine.telemetry.isGpuAvailable()).toBe(false);
  });

  it("reads an op id's GPU speedup from its busiest dtype: the key with the most decisions", async () => {
    // On f16 this GPU is 4x slower than on f32, so the two keys' speedups differ.
    const { engine } = await engineOf({
      gpuMsOf: (op, flops) => (op.op === 'matmul' && op.a.dtype === 'f16' ? 4 : 1) * gpuMs(flops),
    });
    const n = 64;
    const f32 = engine.tensor(new Float32Array(n * n), [n, n]);
    const f16 = engine.tensor(new Uint16Array(n * n), [n, n]);
    for (let i = 0; i < 6; i++)
      for (const only of ['cpu', 'gpu']) await engine.matmul(f32, f32, { strategy: { only } });
    for (let i = 0; i < 12; i++)
      for (const only of ['cpu', 'gpu']) await engine.matmul(f16, f16, { strategy: { only } });
    const flops = 2 * n * n * n;
    const onF16 = engine.telemetry.gpuSpeedup('matmul|f16', flops);
    const onF32 = engine.telemetry.gpuSpeedup('matmul|f32', flops);
    expect(onF16).toBeCloseTo(cpuMs(flops) / (4 * gpuMs(flops)), 6);
    expect(onF32).toBeCloseTo(cpuMs(flops) / gpuMs(flops), 6);
    expect(engine.telemetry.gpuSpeedup('matmul', flops)).toBe(onF16); // f16 made 24 decisions, f32 12
  });

  it('gives no speedup while only the CPU was measured on the op', async () => {
    const { engine } = await engineOf({ forceCpu: true });
    const x = engine.tensor(new Float32Array(64 * 64), [64, 64]);
    for (let i = 0; i < 6; i++) await engine.matmul(x, x);
    expect(engine.telemetry.gpuSpeedup('matmul|f32', 2 * 64 ** 3)).toBeUndefined();
    expect(engine.telemetry.gpuSpeedup('matmul')).toBeUndefined();
  });
});
