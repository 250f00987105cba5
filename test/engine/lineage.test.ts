// A result whose only copy lived on a device lost before it was read: the engine runs its op again from the inputs
// (while the program still holds them), says so in the telemetry, and rejects with DATA_LOST when it cannot.
import { describe, expect, it } from 'vitest';
import { BackendError, Engine, type Tensor } from '@tandem/core';
import { matmul, ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultSchedule } from '@tandem/testing';

/** An engine whose "GPU" (the reference behind a fault injector) is lost on its `lossOnCall`-th run. */
async function engineLosingGpuOn(lossOnCall: number): Promise<Engine> {
  const gpu = new FaultInjectingBackend(new ReferenceBackend(), faultSchedule({ [lossOnCall]: 'device-lost' }), {
    name: 'gpu',
    kind: 'gpu',
    priority: 1,
  });
  return Engine.create({
    backends: [gpu, new ReferenceBackend()],
    strategy: 'gpu-preferred',
    recoveryIntervalMs: 60_000, // the lost GPU stays down for the test
  });
}

const n = 4;
const aData = Float32Array.from({ length: n * n }, (_, i) => (i % 5) - 2);
const bData = Float32Array.from({ length: n * n }, (_, i) => (i % 3) - 1);

/** Loses the GPU: a third op on it fails with a device loss and falls back. */
async function loseGpu(engine: Engine, x: Tensor<'f32'>): Promise<void> {
  (await engine.add(x, x)).dispose();
}

describe('results lost with their device before they were read', () => {
  it('are recomputed from their op, with a tensor-recomputed notice naming the loss', async () => {
    const engine = await engineLosingGpuOn(2);
    const a = engine.tensor(aData, [n, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(a, b);
    expect(c.storage.residency()).toEqual(['gpu']);
    await loseGpu(engine, a);
    expect(await c.read()).toEqual(matmul(aData, bData, n, n, n)); // small integers: exact
    const notices = engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ backend: 'gpu', op: 'matmul' });
    expect(notices[0]?.detail).toMatch(
      /output 0 of matmul lost .*injected device loss on call 2.*; running matmul again/,
    );
    const last = engine.telemetry.opEvents().at(-1);
    expect(last).toMatchObject({ op: 'matmul', backend: 'reference', ok: true });
    expect(c.storage.residency()).toEqual(['host']); // kept: a second read recomputes nothing
    expect(await c.read()).toEqual(matmul(aData, bData, n, n, n));
    expect(engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed')).toHaveLength(1);
    await engine.dispose();
  });

  it('are recomputed under the label of the call that made them', async () => {
    const engine = await engineLosingGpuOn(2);
    const a = engine.tensor(aData, [n, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(a, b, { label: 'scores' });
    await loseGpu(engine, a);
    await c.read();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ op: 'matmul', label: 'scores', ok: true });
    await engine.dispose();
  });

  it('read twice at once, are recomputed once', async () => {
    const engine = await engineLosingGpuOn(2);
    const a = engine.tensor(aData, [n, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(a, b);
    await loseGpu(engine, a);
    const calls = engine.telemetry.opEvents().length;
    const [first, second] = await Promise.all([c.read(), c.read()]);
    expect(first).toEqual(matmul(aData, bData, n, n, n));
    expect(second).toEqual(first);
    expect(engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed')).toHaveLength(1);
    expect(engine.telemetry.opEvents().length - calls).toBe(1); // one matmul run again, not two
    await engine.dispose();
  });

  it('are recomputed through a chain of lost results whose tensors the program still holds', async () => {
    const engine = await engineLosingGpuOn(3);
    const a = engine.tensor(aData, [n, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(a, b);
    const d = await engine.add(c, c); // reads c on the GPU: both live only there
    await loseGpu(engine, a);
    const want = matmul(aData, bData, n, n, n).map((v) => 2 * v);
    expect(await d.read()).toEqual(want);
    const recomputed = engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed');
    expect(recomputed.map((e) => e.op)).toEqual(['add', 'matmul']); // d's op needed c, itself lost
    await engine.dispose();
  });

  it('reject with DATA_LOST naming the input when the program has disposed it', async () => {
    const engine = await engineLosingGpuOn(2);
    const a = engine.tensor(aData, [n, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(a, b);
    await loseGpu(engine, a);
    b.dispose();
    const error = await c.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'DATA_LOST', backend: 'gpu' });
    expect(String(error)).toMatch(/injected device loss on call 2.*cannot be recomputed: input b is no longer held/);
    expect(engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed')).toEqual([]);
    await engine.dispose();
  });

  it('of zero elements read as empty without a recomputation', async () => {
    const engine = await engineLosingGpuOn(2);
    const empty = engine.tensor(new Float32Array(0), [0, n]);
    const b = engine.tensor(bData, [n, n]);
    const c = await engine.matmul(empty, b);
    await loseGpu(engine, b);
    expect(await c.read()).toEqual(new Float32Array(0));
    expect(engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed')).toEqual([]);
    await engine.dispose();
  });
});
