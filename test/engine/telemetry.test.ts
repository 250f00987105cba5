// The engine's telemetry as a user reads it: the `telemetry` option (no event ring, exact counters), CPU and GPU
// totals, the speedup the cost model learned, whether a GPU can take work, and where-and-why in one call.
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, opWork, type Engine, type Op, type TensorSpec } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

/** The same calls on every engine: matmuls of two sizes, each size 40 times. */
async function workload(engine: Engine): Promise<void> {
  for (let i = 0; i < 40; i++)
    for (const n of [32, 256]) (await engine.matmul(square(engine, n), square(engine, n))).dispose();
}

describe('engine telemetry', () => {
  it("with telemetry: false keeps no events, and its counters and tandem_* metrics equal a full engine's", async () => {
    const full = (await simulatedEngine()).engine;
    const counters = (await simulatedEngine({ telemetry: false })).engine;
    await workload(full);
    await workload(counters);
    expect(counters.telemetry.level).toBe('counters');
    expect(counters.telemetry.opEvents()).toEqual([]);
    expect(counters.telemetry.decisions()).toEqual([]);
    expect(full.telemetry.opEvents()).toHaveLength(80);
    expect(counters.telemetry.toPrometheus()).toBe(full.telemetry.toPrometheus());
    expect(counters.telemetry.summary()).toEqual(full.telemetry.summary());
    expect((await simulatedEngine({ telemetry: 'counters' })).engine.telemetry.level).toBe('counters');
    expect((await simulatedEngine({ telemetry: true })).engine.telemetry.level).toBe('events');
    expect((await simulatedEngine({ telemetry: 'events' })).engine.telemetry.level).toBe('events');
    expect((await simulatedEngine()).engine.telemetry.level).toBe('events');
    const refused = await simulatedEngine({ telemetry: 'off' as never }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect(refused).toMatchObject({ argument: 'createEngine.telemetry', value: 'off' });
  });

  it('totals CPU and GPU work, and gives the learned GPU speedup per op and size', async () => {
    const { engine } = await simulatedEngine();
    expect(engine.telemetry.gpuSpeedup('matmul')).toBeUndefined(); // nothing measured yet
    await workload(engine);
    const { byKind, totalOps, totalMs } = engine.telemetry.summary();
    expect((byKind.cpu?.ops ?? 0) + (byKind.gpu?.ops ?? 0)).toBe(totalOps);
    expect((byKind.cpu?.timeShare ?? 0) + (byKind.gpu?.timeShare ?? 0)).toBeCloseTo(1, 12);
    expect(byKind.gpu?.totalMs).toBeCloseTo(totalMs * (byKind.gpu?.timeShare ?? 0), 9);
    // The simulated backends take exactly their latency functions' time: the learned speedup is their ratio.
    const work = (n: number) =>
      opWork({
        op: 'matmul',
        a: { dtype: 'f32', shape: [n, n] },
        b: { dtype: 'f32', shape: [n, n] },
      } satisfies Op<TensorSpec>);
    const ratio = (n: number) =>
      cpuLatency({ op: 'scale', x: { dtype: 'f32', shape: [1] }, factor: 1 }, work(n)) /
      gpuLatency({ op: 'scale', x: { dtype: 'f32', shape: [1] }, factor: 1 }, work(n));
    expect(engine.telemetry.gpuSpeedup('matmul', work(256).flops)).toBeCloseTo(ratio(256), 6);
    expect(engine.telemetry.gpuSpeedup('matmul|f32', work(32).flops)).toBeCloseTo(ratio(32), 6);
    expect(engine.telemetry.gpuSpeedup('matmul')).toBeCloseTo(ratio(256), 6); // the newest call's size
    expect(engine.telemetry.gpuSpeedup('add')).toBeUndefined();
  });

  it('says whether a GPU can take work: not under forceCpu, not while the GPU is unhealthy', async () => {
    expect((await simulatedEngine()).engine.telemetry.isGpuAvailable()).toBe(true);
    expect((await simulatedEngine({ forceCpu: true })).engine.telemetry.isGpuAvailable()).toBe(false);
    const lost = new FaultInjectingBackend(new ReferenceBackend(), () => 'device-lost', { name: 'gpu', kind: 'gpu' });
    const engine = (await simulatedEngine({ backends: [lost, new ReferenceBackend()], recoveryIntervalMs: 1e9 }))
      .engine;
    expect(engine.telemetry.isGpuAvailable()).toBe(true);
    const x = engine.tensor(new Float32Array(4), [2, 2]);
    await engine.matmul(x, x, { strategy: 'gpu-preferred' });
    expect(engine.telemetry.isGpuAvailable()).toBe(false);
  });

  it('lists each call with its shapes, backend, reason in words and time', async () => {
    const { engine } = await simulatedEngine();
    await engine.matmul(square(engine, 256), square(engine, 256), { label: 'big' });
    const [row] = engine.telemetry.decisions({ last: 1 });
    expect(row).toMatchObject({ op: 'matmul', label: 'big', shapes: '256x256, 256x256', ok: true, failed: [] });
    // The cost model's pick is the GPU, which has not run a matmul yet: the CPU serves while it warms up.
    expect(row).toMatchObject({ backend: 'cpu' });
    expect(row?.reason).toBe('gpu is warming up (its first run of this op, in the background)');
    await engine.matmul(square(engine, 256), square(engine, 256), { label: 'big' });
    expect(engine.telemetry.decisions({ last: 1 })[0]?.reason).toMatch(
      /^cost model \(prior\): gpu [\d.]+ms, cpu [\d.]+ms$/,
    );
    expect(engine.telemetry.decisionsTable(1)).toContain(`big (matmul)`);
    expect(engine.telemetry.debugTable()).toContain(row?.reason ?? '-');
  });
});
