// SimulatedBackend: the null device the scheduler tests stand on. Its outputs are zero bytes of the right size, its
// time is exactly its latency function on the ManualClock, copies cost bytes / bandwidth, and it reports what it
// was told to (capabilities, memory, performance, software) and nothing it was not.
import { describe, expect, it } from 'vitest';
import type { BoundTensor, Op } from '@tandem/core';
import { ManualClock } from './manual-clock.ts';
import { SimulatedBackend } from './simulated-backend.ts';

function backend(
  clock: ManualClock,
  extra: Partial<ConstructorParameters<typeof SimulatedBackend>[0]> = {},
): SimulatedBackend {
  return new SimulatedBackend({
    name: 'sim',
    kind: 'gpu',
    latencyMs: (_op, work) => work.flops / 1000,
    clock,
    ...extra,
  });
}

describe('SimulatedBackend', () => {
  it("runs an op in exactly its latency on the manual clock, with zero-filled outputs of the specs' sizes", async () => {
    const clock = new ManualClock();
    const sim = backend(clock);
    const a = await sim.upload(new Uint8Array(2 * 3 * 4));
    const b = await sim.upload(new Uint8Array(3 * 5 * 4));
    const op: Op<BoundTensor> = {
      op: 'matmul',
      a: { dtype: 'f32', shape: [2, 3], buffer: a },
      b: { dtype: 'f32', shape: [3, 5], buffer: b },
    };
    const result = await sim.run(op, [
      { dtype: 'f32', shape: [2, 5] },
      { dtype: 'f16', shape: [3] },
    ]);
    expect(clock.nowMs).toBe((2 * 2 * 3 * 5) / 1000); // 2 M K N flops / 1000
    expect(result.kernelMs).toBe(clock.nowMs);
    expect(result.outputs.map((o) => o.byteLength)).toEqual([40, 6]);
    expect(Array.from(await sim.download(result.outputs[0] ?? a))).toEqual(new Array(40).fill(0));
    expect(sim.calls).toBe(1);
  });

  it('follows setLatency from the next call on', async () => {
    const clock = new ManualClock();
    const sim = backend(clock);
    const x = await sim.upload(new Uint8Array(4));
    sim.setLatency(() => 3);
    await sim.run({ op: 'silu', x: { dtype: 'f32', shape: [1], buffer: x } }, [{ dtype: 'f32', shape: [1] }]);
    expect(clock.nowMs).toBe(3);
  });

  it('charges bytes / transferBytesPerMs for each upload and download, and nothing without it', async () => {
    const clock = new ManualClock();
    const slow = backend(clock, { transferBytesPerMs: 100 });
    const buffer = await slow.upload(new Uint8Array(250));
    expect(clock.nowMs).toBe(2.5);
    await slow.download(buffer);
    expect(clock.nowMs).toBe(5);
    const free = backend(clock);
    await free.download(await free.upload(new Uint8Array(1000)));
    expect(clock.nowMs).toBe(5);
  });

  it('keeps a copy of uploaded bytes, downloads a copy, and refuses a freed buffer', async () => {
    const sim = backend(new ManualClock());
    const data = Uint8Array.of(1, 2, 3, 4);
    const buffer = await sim.upload(data);
    data[0] = 9;
    const back = await sim.download(buffer);
    expect(Array.from(back)).toEqual([1, 2, 3, 4]);
    back[1] = 9;
    expect(Array.from(await sim.download(buffer))).toEqual([1, 2, 3, 4]);
    expect(buffer).toMatchObject({ backend: 'sim', byteLength: 4 });
    sim.free(buffer);
    await expect(sim.download(buffer)).rejects.toThrow('sim: buffer 1 does not exist');
  });

  it('supports every op and dtype by default, and only its capabilities when given', () => {
    const all = backend(new ManualClock());
    expect(
      all.supportsOp({
        op: 'quantizedMatmul',
        x: { dtype: 'f32', shape: [1, 32] },
        w: { dtype: 'q4_0', shape: [2, 32] },
      }),
    ).toEqual({ ok: true });
    const onlyAdd = backend(new ManualClock(), { capabilities: [{ op: 'add', dtypes: ['f32'] }] });
    expect(onlyAdd.supportsOp({ op: 'add', a: { dtype: 'f32', shape: [2] }, b: { dtype: 'f32', shape: [2] } })).toEqual(
      { ok: true },
    );
    expect(onlyAdd.supportsOp({ op: 'mul', a: { dtype: 'f32', shape: [2] }, b: { dtype: 'f32', shape: [2] } }).ok).toBe(
      false,
    );
    expect(onlyAdd.supportsOp({ op: 'add', a: { dtype: 'f16', shape: [2] }, b: { dtype: 'f16', shape: [2] } }).ok).toBe(
      false,
    );
  });

  it('describes only what it was given; defaults priority 50, not fallback-only, healthy', () => {
    const plain = backend(new ManualClock());
    expect(plain.describe()).toEqual({ name: 'simulated gpu', features: [] });
    expect([plain.priority, plain.fallbackOnly, plain.health()]).toEqual([50, false, { state: 'healthy' }]);
    const performance = { flopsPerMs: 1e6, bytesPerMs: 1e5, launchMs: 0.01, transferBytesPerMs: 1e4 };
    const told = backend(new ManualClock(), {
      performance,
      availableMemoryBytes: 1024,
      software: true,
      priority: 3,
      fallbackOnly: true,
    });
    expect(told.describe()).toEqual({
      name: 'simulated gpu',
      features: [],
      performance,
      availableMemoryBytes: 1024,
      software: true,
    });
    expect([told.priority, told.fallbackOnly]).toEqual([3, true]);
  });

  it('forgets every buffer on dispose', async () => {
    const sim = backend(new ManualClock());
    const buffer = await sim.upload(new Uint8Array(4));
    await sim.dispose();
    await expect(sim.download(buffer)).rejects.toThrow(/does not exist/);
  });
});
