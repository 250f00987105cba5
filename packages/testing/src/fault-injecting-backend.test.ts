// FaultInjectingBackend: each fault kind fails the way a real GPU does (a synchronous throw, a rejection, out of
// memory naming the size, a hang, a device loss that makes the backend unhealthy and its old buffers unusable until
// init()), on the calls its plan names; every other call is the inner backend's own.
import { describe, expect, it } from 'vitest';
import {
  BackendError,
  DeviceLostError,
  OutOfMemoryError,
  type BoundTensor,
  type DeviceBuffer,
  type Op,
} from '@tandem/core';
import { FaultInjectingBackend, faultRate, faultSchedule, type FaultKind } from './fault-injecting-backend.ts';
import { ManualClock } from './manual-clock.ts';
import { SimulatedBackend } from './simulated-backend.ts';

const SPEC = { dtype: 'f32', shape: [2] } as const;

/** A wrapper over a simulated backend (1 ms per op), and a silu op on an uploaded input. */
async function wrapped(
  plan: Parameters<typeof faultSchedule>[0] | ReturnType<typeof faultSchedule>,
  options = {},
): Promise<{ faulty: FaultInjectingBackend; inner: SimulatedBackend; op: Op<BoundTensor>; input: DeviceBuffer }> {
  const inner = new SimulatedBackend({ name: 'sim', kind: 'cpu', latencyMs: () => 1, clock: new ManualClock() });
  const faulty = new FaultInjectingBackend(inner, typeof plan === 'function' ? plan : faultSchedule(plan), options);
  const input = await faulty.upload(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8), SPEC);
  return { faulty, inner, op: { op: 'silu', x: { ...SPEC, buffer: input } }, input };
}

describe('faultSchedule and faultRate', () => {
  it('faultSchedule names the fault of exactly the calls listed', () => {
    const plan = faultSchedule({ 2: 'reject', 5: 'hang' });
    const op: Op<BoundTensor> = { op: 'silu', x: { ...SPEC, buffer: { backend: 'x', id: 1, byteLength: 8 } } };
    expect([1, 2, 3, 4, 5, 6].map((call) => plan(call, op))).toEqual([
      undefined,
      'reject',
      undefined,
      undefined,
      'hang',
      undefined,
    ]);
  });

  it('faultRate repeats exactly for a seed, differs for another, draws only the kinds given, near the rate', () => {
    const op: Op<BoundTensor> = { op: 'silu', x: { ...SPEC, buffer: { backend: 'x', id: 1, byteLength: 8 } } };
    const draw = (seed: number): Array<FaultKind | undefined> => {
      const plan = faultRate(0.1, ['throw', 'oom'], seed);
      return Array.from({ length: 10_000 }, (_, i) => plan(i + 1, op));
    };
    const first = draw(7);
    expect(draw(7)).toEqual(first);
    expect(draw(8)).not.toEqual(first);
    const faults = first.filter((f) => f !== undefined);
    expect(new Set(faults)).toEqual(new Set(['throw', 'oom']));
    // 10,000 draws at 0.1: 1,000 expected, standard deviation 30; 850..1150 is five of them either side.
    expect(faults.length).toBeGreaterThan(850);
    expect(faults.length).toBeLessThan(1150);
  });
});

describe('FaultInjectingBackend', () => {
  it('passes calls with no fault through to the inner backend, counting calls and no faults', async () => {
    const { faulty, inner, op, input } = await wrapped({});
    const result = await faulty.run(op, [SPEC]);
    expect(result.kernelMs).toBe(1);
    expect(result.outputs[0]).toMatchObject({ backend: 'sim', byteLength: 8 });
    expect(Array.from(await faulty.download(result.outputs[0] ?? input))).toEqual(new Array(8).fill(0));
    expect([faulty.calls, inner.calls, faulty.totalInjected]).toEqual([1, 1, 0]);
  });

  it("'throw' throws synchronously, 'reject' and 'oom' reject, each with its error and count; the next call works", async () => {
    const { faulty, op } = await wrapped({ 1: 'throw', 2: 'reject', 3: 'oom' });
    expect(() => faulty.run(op, [SPEC])).toThrow(BackendError);
    await expect(faulty.run(op, [SPEC])).rejects.toMatchObject({
      code: 'INJECTED',
      message: expect.stringContaining('call 2'),
    });
    const oom = await faulty.run(op, [SPEC]).catch((e: unknown) => e);
    expect(oom).toBeInstanceOf(OutOfMemoryError);
    expect(oom instanceof OutOfMemoryError ? oom.requestedBytes : 0).toBe(2 ** 40);
    await expect(faulty.run(op, [SPEC])).resolves.toMatchObject({ kernelMs: 1 });
    expect(faulty.injected).toEqual({ throw: 1, reject: 1, hang: 0, 'device-lost': 0, oom: 1 });
    expect(faulty.health()).toEqual({ state: 'healthy' });
  });

  it("'device-lost' rejects, turns unhealthy, refuses every call and old buffer until init(), then works again", async () => {
    const { faulty, op, input } = await wrapped({ 1: 'device-lost' });
    await expect(faulty.run(op, [SPEC])).rejects.toBeInstanceOf(DeviceLostError);
    expect(faulty.health()).toEqual({ state: 'unhealthy', reason: 'injected device loss on call 1' });
    await expect(faulty.run(op, [SPEC])).rejects.toBeInstanceOf(DeviceLostError);
    await expect(faulty.upload(new Uint8Array(8), SPEC)).rejects.toBeInstanceOf(DeviceLostError);
    await expect(faulty.download(input)).rejects.toBeInstanceOf(DeviceLostError);
    expect(await faulty.init()).toEqual({ ok: true });
    expect(faulty.health()).toEqual({ state: 'healthy' });
    // A buffer of the lost device is refused; a new upload works.
    await expect(faulty.run(op, [SPEC])).rejects.toBeInstanceOf(DeviceLostError);
    const fresh = await faulty.upload(new Uint8Array(8), SPEC);
    await expect(faulty.run({ op: 'silu', x: { ...SPEC, buffer: fresh } }, [SPEC])).resolves.toMatchObject({
      kernelMs: 1,
    });
  });

  it("'hang' never settles without hangMs, and with it completes the call after that long", async () => {
    const forever = await wrapped({ 1: 'hang' });
    let settled = false;
    void forever.faulty.run(forever.op, [SPEC]).finally(() => (settled = true));
    const bounded = await wrapped({ 1: 'hang' }, { hangMs: 5 });
    const result = await bounded.faulty.run(bounded.op, [SPEC]);
    expect(result.kernelMs).toBe(1); // the inner backend's run, after the hang
    expect(settled).toBe(false); // the other hang is still pending after that 5 ms
    expect(forever.faulty.injected.hang).toBe(1);
  });

  it('refuses buffers it did not hand out, and frees the inner buffer on free()', async () => {
    const { faulty, inner, op, input } = await wrapped({});
    await expect(faulty.download({ backend: 'sim', id: 999, byteLength: 8 })).rejects.toMatchObject({
      code: 'UNKNOWN_BUFFER',
    });
    await expect(faulty.download({ ...input, backend: 'other' })).rejects.toMatchObject({ code: 'UNKNOWN_BUFFER' });
    faulty.free(input);
    await expect(faulty.run(op, [SPEC])).rejects.toMatchObject({ code: 'UNKNOWN_BUFFER' });
    await expect(inner.download({ backend: 'sim', id: 1, byteLength: 8 })).rejects.toThrow(/does not exist/);
  });

  it('reports the inner backend, or the name, kind and priority it is told to play', async () => {
    const { faulty, inner } = await wrapped({});
    expect([faulty.name, faulty.kind, faulty.priority, faulty.capabilities]).toEqual([
      inner.name,
      inner.kind,
      inner.priority,
      inner.capabilities,
    ]);
    const playing = new FaultInjectingBackend(inner, faultSchedule({}), { name: 'gpu', kind: 'gpu', priority: 1 });
    expect([playing.name, playing.kind, playing.priority]).toEqual(['gpu', 'gpu', 1]);
    expect(playing.describe()).toEqual(inner.describe());
  });
});
