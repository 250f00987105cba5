// Caller errors never touch health (issue 32): an input disposed before or while its op runs is a DisposedError
// (not AllBackendsFailedError), and neither it, invalid arguments, foreign tensors nor aborted calls count against a
// backend's success rate or open a circuit (engine.trackerStats()). A result whose input was disposed mid-run is not
// handed out: its buffer may have been reused.
import { describe, expect, it, vi } from 'vitest';
import { AbortedError, BackendError, DisposedError, Engine, InvalidArgumentError } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Two reference backends ('first' preferred, 'second' its fallback) whose run() waits for `hold` when set. */
async function gatedEngine() {
  const first = new ReferenceBackend({ memoryBytes: 1 << 20 });
  const second = new ReferenceBackend({ memoryBytes: 1 << 20 });
  const state: { hold: Promise<void> | undefined; started: number } = { hold: undefined, started: 0 };
  for (const backend of [first, second]) {
    const run = backend.run.bind(backend);
    vi.spyOn(backend, 'run').mockImplementation(async (op, outputs) => {
      state.started++;
      if (state.hold !== undefined) await state.hold;
      return run(op, outputs);
    });
  }
  const a = new FaultInjectingBackend(first, () => undefined, { name: 'first', priority: 1 });
  const b = new FaultInjectingBackend(second, () => undefined, { name: 'second', priority: 2 });
  const engine = await Engine.create({ backends: [a, b], strategy: 'cpu-preferred' });
  return { engine, state, first };
}

/** Every circuit closed and no failure recorded. */
function expectHealthy(engine: Engine): void {
  for (const s of engine.trackerStats())
    expect(s, `${s.op} on ${s.backend}`).toMatchObject({ failures: 0, circuit: 'closed' });
  expect(engine.telemetry.opEvents().filter((e) => !e.ok)).toEqual([]);
}

describe('an input disposed during its op', () => {
  it('disposed right after the call (before it binds): DisposedError naming the input, ten times, circuits closed', async () => {
    const { engine } = await gatedEngine();
    for (let i = 0; i < 10; i++) {
      const a = engine.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
      const b = engine.tensor(new Float32Array([5, 6, 7, 8]), [2, 2]);
      const call = engine.matmul(a, b);
      b.dispose();
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DisposedError);
      expect(error).toMatchObject({ message: 'matmul.b was used after dispose()' });
    }
    expectHealthy(engine);
  });

  it('disposed while the backend runs: DisposedError, no fallback, the late outputs freed', async () => {
    const { engine, state, first } = await gatedEngine();
    const a = engine.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
    await (await engine.matmul(a, a)).read(); // warm: `a` is resident on 'first'
    const held = first.availableMemory();
    for (let i = 0; i < 6; i++) {
      const x = engine.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
      const { opened, open } = gate();
      state.hold = opened;
      const startedBefore = state.started;
      const call = engine.matmul(a, x);
      while (state.started === startedBefore) await new Promise((r) => setTimeout(r, 1));
      x.dispose(); // its buffer on 'first' is freed while the kernel waits to read it
      open();
      await expect(call).rejects.toThrow(DisposedError);
      state.hold = undefined;
    }
    expect(first.availableMemory()).toBe(held); // nothing left behind on the backend
    expectHealthy(engine);
    expect(engine.trackerStats().find((s) => s.backend === 'second')).toBeUndefined(); // never fallen back to
  });

  it('disposed after the backend read it but before the result came back: the result is refused and freed', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const { opened, open } = gate();
    const run = cpu.run.bind(cpu);
    vi.spyOn(cpu, 'run').mockImplementation(async (op, outputs) => {
      const result = await run(op, outputs); // the inputs were read: a kernel that finished
      await opened;
      return result;
    });
    const free = vi.spyOn(cpu, 'free');
    const engine = await Engine.create({ backends: [cpu], clock: clock.clock });
    const x = engine.tensor(new Float32Array(4), [4]);
    const call = engine.silu(x);
    while (cpu.calls === 0) await new Promise((r) => setTimeout(r, 1));
    x.dispose();
    open();
    await expect(call).rejects.toThrow(DisposedError);
    expect(free).toHaveBeenCalledTimes(2); // x's replica, then the refused output
    expectHealthy(engine);
  });
});

describe('caller errors leave every circuit closed', () => {
  it('invalid arguments, foreign tensors, disposed inputs and aborts, many times over', async () => {
    const { engine } = await gatedEngine();
    const other = await Engine.create({ backends: [new ReferenceBackend()] });
    const x = engine.tensor(new Float32Array(6), [2, 3]);
    const calls: Array<[string, () => Promise<unknown>, new (...args: never[]) => Error]> = [
      ['shape mismatch', () => engine.matmul(x, x), InvalidArgumentError],
      ['unknown op', () => Reflect.apply(engine.run, engine, [{ op: 'frobnicate', x }]), InvalidArgumentError],
      ['foreign tensor', () => engine.add(x, other.tensor(new Float32Array(6), [2, 3])), InvalidArgumentError],
      [
        'disposed input',
        () => {
          const gone = engine.tensor(new Float32Array(6), [2, 3]);
          gone.dispose();
          return engine.add(x, gone);
        },
        DisposedError,
      ],
      ['aborted', () => engine.add(x, x, { signal: AbortSignal.abort() }), AbortedError],
    ];
    for (let round = 0; round < 12; round++) {
      for (const [name, call, kind] of calls) await expect(call(), name).rejects.toBeInstanceOf(kind);
    }
    expectHealthy(engine);
    // The preferred backend still serves, by choice and not as a fallback.
    const y = await engine.add(x, x);
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({
      backend: 'first',
      ok: true,
      reason: { kind: 'user-preference' },
    });
    y.dispose();
  });

  it("an input a backend finds invalid (wrapped in its BackendError) is the caller's: rethrown, not retried, not counted", async () => {
    const clock = new ManualClock();
    const picky = new SimulatedBackend({ name: 'picky', kind: 'cpu', priority: 1, clock, latencyMs: () => 1 });
    const spare = new SimulatedBackend({ name: 'spare', kind: 'cpu', priority: 2, clock, latencyMs: () => 1 });
    vi.spyOn(picky, 'run').mockImplementation(async () => {
      const cause = new InvalidArgumentError('silu.x', 'NaN', 'the kernel refuses it');
      throw new BackendError('INVALID_ARGUMENT', 'picky', cause.message, { cause });
    });
    const engine = await Engine.create({ backends: [picky, spare], clock: clock.clock, strategy: 'cpu-preferred' });
    const x = engine.tensor(new Float32Array(4), [4]);
    for (let i = 0; i < 10; i++) await expect(engine.silu(x)).rejects.toThrow(/silu\.x = "NaN": the kernel refuses it/);
    expect(spare.calls).toBe(0);
    expect(engine.trackerStats().filter((s) => s.failures > 0 || s.circuit !== 'closed')).toEqual([]);
  });

  it("a caller error during a half-open circuit's probe frees the probe slot: the next call probes and closes it", async () => {
    const clock = new ManualClock();
    const inner = new SimulatedBackend({ name: 'gpu', kind: 'gpu', clock, latencyMs: () => 0.1 });
    const gpu = new FaultInjectingBackend(
      inner,
      faultSchedule({ 1: 'reject', 2: 'reject', 3: 'reject', 4: 'reject', 5: 'reject' }),
    );
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const engine = await Engine.create({
      backends: [gpu, cpu],
      clock: clock.clock,
      strategy: 'gpu-preferred',
      tracker: { coolDownMs: 100 },
    });
    const x = engine.tensor(new Float32Array(4), [4]);
    for (let i = 0; i < 5; i++) await engine.silu(x);
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')?.circuit).toBe('open');
    clock.advance(200); // half-open: the next call to the GPU is its probe
    const { opened, open } = gate();
    const run = inner.run.bind(inner);
    const spy = vi.spyOn(inner, 'run').mockImplementationOnce(async (op, outputs) => {
      await opened;
      return run(op, outputs);
    });
    const y = engine.tensor(new Float32Array(4), [4]);
    const probe = engine.silu(y);
    while (spy.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 1));
    y.dispose();
    open();
    await expect(probe).rejects.toThrow(DisposedError);
    await engine.silu(x); // probes again (the slot was freed) and succeeds
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'gpu', ok: true });
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')?.circuit).toBe('closed');
  });
});
