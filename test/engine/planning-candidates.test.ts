// How the engine prices each backend for a call (engine-planning.ts), as explain() and run() show it: health and
// capability verdicts, copies of inputs that are views, the memory a backend says it has, plans reused by identical
// calls and when they are not, and the error when no backend can take a call.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AllBackendsFailedError, DEFAULT_PROFILES, Engine, Scheduler } from '@tandem/core';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const N = 256;

describe('what each backend is for a call', () => {
  it("a backend whose health is 'unavailable' is skipped with that state and its reason", async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'health').mockReturnValue({ state: 'unavailable', reason: 'adapter lost' });
    const a = square(engine, N);
    const plan = engine.explain({ op: 'matmul', a, b: a });
    expect(plan.selection.backend).toBe('cpu');
    expect(plan.skipped).toEqual([{ backend: 'gpu', reason: 'unavailable: adapter lost' }]);
  });

  it("a backend's own supportsOp verdict decides, over its capability list", async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'supportsOp').mockReturnValue({ ok: false, reason: 'needs more than one dispatch' });
    const a = square(engine, N);
    expect(engine.explain({ op: 'matmul', a, b: a }).skipped).toEqual([
      { backend: 'gpu', reason: 'needs more than one dispatch' },
    ]);
  });

  it('a backend that cannot take the call is neither priced nor listed in its memory needs', async () => {
    const { engine, gpu } = await simulatedEngine({ gpu: { capabilities: [{ op: 'add', dtypes: ['f32'] }] } });
    // Its cost model knows only the ops it runs.
    const estimateCost = vi.fn((): number => {
      throw new Error('no kernel for this op');
    });
    Object.assign(gpu, { estimateCost });
    const a = square(engine, N);
    const plan = engine.explain({ op: 'matmul', a, b: a });
    expect(plan.skipped.map((s) => s.backend)).toEqual(['gpu']);
    expect(Object.keys(plan.memory)).toEqual(['cpu']);
    expect(estimateCost).not.toHaveBeenCalled();
  });

  it('an input that is a view is priced as a copy of its elements to a GPU, and counted in its memory', async () => {
    const { engine } = await simulatedEngine();
    const view = square(engine, 64).transpose();
    expect(view.isContiguous).toBe(false);
    const plan = engine.explain({ op: 'matmul', a: view, b: view });
    const bytes = 2 * 64 * 64 * 4; // a and b, each gathered and copied
    expect(plan.transfersMs['gpu']).toBeCloseTo(bytes / DEFAULT_PROFILES.gpu.transferBytesPerMs, 12);
    expect(plan.memory['gpu']).toMatchObject({ inputBytes: bytes, outputBytes: 64 * 64 * 4 });
  });

  it('the bytes free are what availableMemory() says when the backend has it', async () => {
    const { engine, gpu } = await simulatedEngine({ gpu: { availableMemoryBytes: 1 << 30 } });
    Object.assign(gpu, { availableMemory: () => 123_456_789 });
    const a = square(engine, N);
    expect(engine.explain({ op: 'matmul', a, b: a }).memory['gpu']?.availableBytes).toBe(123_456_789);
  });

  it('with no backend able to take a call, run() rejects with AllBackendsFailedError naming each one', async () => {
    const clock = new ManualClock();
    const only = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock, capabilities: [] });
    const engine = await Engine.create({ clock: clock.clock, backends: [only] });
    const a = square(engine, 4);
    const error = await engine.matmul(a, a).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllBackendsFailedError);
    expect(error).toMatchObject({ failures: [{ backend: 'cpu', error: expect.stringMatching(/matmul/) }] });
  });
});

describe('plans reused by identical calls', () => {
  it('gpu-preferred calls reuse their plan', async () => {
    const { engine } = await simulatedEngine();
    const a = square(engine, 32);
    for (let i = 0; i < 3; i++) await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    const plan = vi.spyOn(Scheduler.prototype, 'plan');
    for (let i = 0; i < 10; i++) await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(plan.mock.calls.length).toBeLessThanOrEqual(1);
    expect(engine.telemetry.opEvents().every((e) => e.backend === 'gpu')).toBe(true);
  });

  for (const state of ['unhealthy', 'unavailable'] as const) {
    it(`a reused plan is dropped once its backend reports ${state}: the next call goes elsewhere`, async () => {
      const { engine, gpu } = await simulatedEngine({ recoveryIntervalMs: 1e9 });
      const a = square(engine, 32);
      for (let i = 0; i < 3; i++) await engine.matmul(a, a, { strategy: 'gpu-preferred' });
      vi.spyOn(gpu, 'health').mockReturnValue({ state, reason: 'device hung' });
      await engine.matmul(a, a, { strategy: 'gpu-preferred' });
      expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'cpu', reason: { kind: 'gpu-unavailable' } });
    });
  }

  it('while a lost GPU waits to recover every call looks at it again (no plan is reused), so its re-init starts once the interval passed', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const inner = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock });
    const gpu = new FaultInjectingBackend(inner, faultSchedule({ 1: 'device-lost', 2: 'device-lost' }));
    const engine = await Engine.create({ clock: clock.clock, backends: [cpu, gpu], recoveryIntervalMs: 1000 });
    const a = square(engine, 32);
    const preferred = { strategy: 'gpu-preferred' } as const;
    const recovered = () => engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-recovered').length;
    await engine.matmul(a, a, preferred); // the GPU is lost; the CPU serves
    await engine.matmul(a, a, preferred); // re-initialises it (its first recovery)
    expect(recovered()).toBe(1);
    await engine.matmul(a, a, preferred); // lost again
    // Plans the CPU would keep for reuse (a user preference) are not kept while the GPU awaits its re-init.
    const cpuPreferred = { strategy: 'cpu-preferred' } as const;
    await engine.matmul(a, a, cpuPreferred); // too soon to re-initialise the GPU
    expect(recovered()).toBe(1);
    clock.advance(1001);
    await engine.matmul(a, a, cpuPreferred); // starts the GPU's second re-init
    expect(recovered()).toBe(2);
    await engine.matmul(a, a, preferred);
    expect(engine.telemetry.opEvents().at(-1)?.backend).toBe('gpu');
  });
});
