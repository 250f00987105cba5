// Two simulated backends with a known crossover, on a manual clock: the scheduler's test bench.
import { Engine, type EngineOptions, type Op, type OpWork, type Tensor, type TensorSpec } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';

/** CPU: 3 us + 40 GFLOP/s. */
export const cpuLatency = (_op: Op<TensorSpec>, w: OpWork): number => 0.003 + w.flops / 4e7;
/** GPU: 100 us launch + 2 TFLOP/s. Crossover with cpuLatency near 4e6 FLOP (matmul n ~ 126). */
export const gpuLatency = (_op: Op<TensorSpec>, w: OpWork): number => 0.1 + w.flops / 2e9;

/** An engine over a simulated cpu and gpu. */
export async function simulatedEngine(
  options: Partial<EngineOptions> & { gpu?: Partial<ConstructorParameters<typeof SimulatedBackend>[0]> } = {},
) {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    priority: 20,
    latencyMs: gpuLatency,
    clock,
    ...options.gpu,
  });
  const engine = await Engine.create({ clock: clock.clock, ...options, backends: options.backends ?? [cpu, gpu] });
  return { engine, clock, cpu, gpu };
}

/** A zero-filled square f32 matrix. */
export function square(engine: Engine, n: number): Tensor<'f32'> {
  return engine.tensor(new Float32Array(n * n), [n, n]);
}
