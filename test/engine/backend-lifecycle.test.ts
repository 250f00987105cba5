// What engine.backends(), explain() and the notices say about each backend's life: before init(), after an init()
// that threw, under forceCpu, for a software GPU, and around a background re-initialisation (when it is tried again,
// and when it counts as recovered).
import { type BackendHealth, Engine, FORCE_CPU_UNSTARTED, type InitResult } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { describe, expect, it } from 'vitest';
import { cpuLatency, gpuLatency, square } from '../scheduler/harness.ts';

type SimulatedBackendOptions = ConstructorParameters<typeof SimulatedBackend>[0];

/** A simulated GPU whose health and init() results the test sets. */
class ScriptedGpu extends SimulatedBackend {
  healthNow: BackendHealth = { state: 'healthy' };
  initResult: () => Promise<InitResult> = async () => ({ ok: true });
  inits = 0;

  constructor(clock: ManualClock, options: Partial<SimulatedBackendOptions> = {}) {
    super({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock, ...options });
  }

  override async init(): Promise<InitResult> {
    this.inits++;
    return this.initResult();
  }

  override health(): BackendHealth {
    return this.healthNow;
  }
}

function backends(options: Partial<SimulatedBackendOptions> = {}) {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
  const gpu = new ScriptedGpu(clock, options);
  return { clock, cpu, gpu };
}

/** Lets re-initialisations started in the background finish. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('backend statuses', () => {
  it('before init(), every backend reads unavailable: not initialised, with that as its health', () => {
    const { clock, cpu, gpu } = backends();
    const engine = new Engine({ backends: [cpu, gpu], clock: clock.clock });
    const notInitialised = {
      available: false,
      unavailableReason: 'not initialised',
      device: undefined,
      software: false,
      health: { state: 'unavailable', reason: 'not initialised' },
    };
    expect(engine.backends()).toEqual([
      { name: 'cpu', kind: 'cpu', ...notInitialised },
      { name: 'gpu', kind: 'gpu', ...notInitialised },
    ]);
  });

  it('before init(), explain() gives "unavailable: not initialised" as why each backend was skipped', () => {
    const { clock, cpu, gpu } = backends();
    const engine = new Engine({ backends: [cpu, gpu], clock: clock.clock });
    const x = square(engine, 8);
    expect(() => engine.explain({ op: 'matmul', a: x, b: x })).toThrow(/unavailable: not initialised/);
  });

  it('says whether an initialised device is a software GPU, and that one not initialised is not', async () => {
    const soft = backends({ software: true });
    const softEngine = await Engine.create({ backends: [soft.cpu, soft.gpu], clock: soft.clock.clock });
    expect(softEngine.backends().map((b) => [b.name, b.device, b.software])).toEqual([
      ['cpu', 'simulated cpu', false],
      ['gpu', 'simulated gpu', true],
    ]);
    const failed = backends({ software: true });
    failed.gpu.initResult = async () => ({ ok: false, reason: 'no adapter' });
    const failedEngine = await Engine.create({ backends: [failed.cpu, failed.gpu], clock: failed.clock.clock });
    expect(failedEngine.backends().find((b) => b.name === 'gpu')).toMatchObject({ device: undefined, software: false });
  });
});

describe('an init() that throws', () => {
  it('leaves the backend unavailable with "init threw: <message>" in its status, health, notice and explain()', async () => {
    const { clock, cpu, gpu } = backends();
    gpu.initResult = async () => {
      throw new Error('driver crashed');
    };
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    expect(engine.backends().find((b) => b.name === 'gpu')).toEqual({
      name: 'gpu',
      kind: 'gpu',
      available: false,
      unavailableReason: 'init threw: driver crashed',
      device: undefined,
      software: false,
      health: { state: 'unavailable', reason: 'init threw: driver crashed' },
    });
    expect(engine.telemetry.noticeEvents()).toContainEqual(
      expect.objectContaining({ kind: 'backend-unavailable', backend: 'gpu', detail: 'init threw: driver crashed' }),
    );
    const x = square(engine, 512);
    const plan = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(plan.selection.backend).toBe('cpu');
    expect(plan.skipped).toContainEqual({ backend: 'gpu', reason: 'unavailable: init threw: driver crashed' });
  });
});

describe('forceCpu', () => {
  it('reports a GPU it never started with a reason naming forceCpu and how it was set, in its status and notice', async () => {
    const { clock, cpu, gpu } = backends();
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock, forceCpu: true });
    expect(gpu.inits).toBe(0);
    const status = engine.backends().find((b) => b.name === 'gpu');
    expect(status?.available).toBe(false);
    expect(status?.unavailableReason).toBe(FORCE_CPU_UNSTARTED);
    expect(FORCE_CPU_UNSTARTED).toMatch(/^not started: forceCpu .*TANDEM_FORCE_CPU=1.* starts no GPU backend/);
    expect(engine.telemetry.noticeEvents()).toContainEqual(
      expect.objectContaining({ kind: 'backend-unavailable', backend: 'gpu', detail: FORCE_CPU_UNSTARTED }),
    );
  });
});

describe('background re-initialisation of an unhealthy backend', () => {
  it('is tried again once recoveryIntervalMs has passed since the last attempt, not before', async () => {
    const { clock, cpu, gpu } = backends();
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 100 });
    const x = square(engine, 8);
    const explain = async () => {
      engine.explain({ op: 'matmul', a: x, b: x });
      await settle();
    };
    gpu.healthNow = { state: 'unhealthy', reason: 'device lost' };
    await explain(); // first attempt
    expect(gpu.inits).toBe(2);
    clock.advance(99);
    await explain();
    expect(gpu.inits).toBe(2);
    clock.advance(1); // exactly the interval
    await explain();
    expect(gpu.inits).toBe(3);
  });

  /** An engine whose gpu went unhealthy and was re-initialised once, with `health` as its health after that. */
  async function recoveredOnce(reinit: InitResult, health: BackendHealth) {
    const { clock, cpu, gpu } = backends();
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 100 });
    const x = square(engine, 8);
    gpu.healthNow = { state: 'unhealthy', reason: 'device lost' };
    gpu.initResult = async () => {
      gpu.healthNow = health;
      return reinit;
    };
    engine.explain({ op: 'matmul', a: x, b: x });
    await settle();
    expect(gpu.inits).toBe(2);
    return engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-recovered');
  }

  it('is noticed as recovered when init() succeeds and the backend then reads healthy', async () => {
    expect(await recoveredOnce({ ok: true }, { state: 'healthy' })).toEqual([
      expect.objectContaining({ backend: 'gpu', detail: 'init succeeded after failure' }),
    ]);
  });

  it('is noticed as recovered when init() succeeds and the backend then reads degraded', async () => {
    expect(await recoveredOnce({ ok: true }, { state: 'degraded', reason: 'slow' })).toHaveLength(1);
  });

  it('is not noticed as recovered when init() succeeds but the backend still reads unhealthy', async () => {
    expect(await recoveredOnce({ ok: true }, { state: 'unhealthy', reason: 'device lost' })).toEqual([]);
  });

  it('is not noticed as recovered when init() succeeds but the backend reads unavailable', async () => {
    expect(await recoveredOnce({ ok: true }, { state: 'unavailable', reason: 'gone' })).toEqual([]);
  });

  it('is not noticed as recovered when init() fails, even if the backend reads healthy', async () => {
    expect(await recoveredOnce({ ok: false, reason: 'process did not start' }, { state: 'healthy' })).toEqual([]);
  });
});
