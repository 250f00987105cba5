import { describe, expect, it } from 'vitest';
import {
  AllBackendsFailedError,
  type Candidate,
  DEFAULT_PROFILES,
  FORCE_CPU_UNSTARTED,
  opWork,
  type OpWork,
  type Scheduler,
  type Tensor,
} from '@tandem/core';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from './harness.ts';
import { candidate, planBench } from './plan-bench.ts';

describe('auto: cost model', () => {
  it('learns the crossover: small matmuls on the CPU, large ones on the GPU', async () => {
    const { engine } = await simulatedEngine();
    const sizes = [16, 32, 64, 96, 160, 256, 512];
    for (let round = 0; round < 30; round++)
      for (const n of sizes) await engine.matmul(square(engine, n), square(engine, n));
    const pick = (n: number) => engine.explain({ op: 'matmul', a: square(engine, n), b: square(engine, n) }).selection;
    expect(pick(16).backend).toBe('cpu');
    expect(pick(64).backend).toBe('cpu');
    expect(pick(256).backend).toBe('gpu');
    expect(pick(512).backend).toBe('gpu');
    expect(pick(512).reason.kind).toBe('cost-model');
  });

  it('counts transfers: a GPU-resident input tips a borderline op to the GPU', async () => {
    const performance = { ...DEFAULT_PROFILES.gpu, transferBytesPerMs: 1e3 };
    const { engine } = await simulatedEngine({ gpu: { transferBytesPerMs: 1e3, performance } });
    const n = 160; // GPU is faster on compute, but moving 2 x 100 KB at 1 MB/s costs 200 ms
    const hostA = square(engine, n);
    const fresh = engine.explain({ op: 'matmul', a: hostA, b: square(engine, n) });
    expect(fresh.selection.backend).toBe('cpu');
    expect(fresh.costsMs['gpu']).toBeGreaterThan(100);
    expect(fresh.transfersMs['gpu']).toBeGreaterThan(100); // explain() says it is the copies, not the compute
    expect((fresh.costsMs['gpu'] ?? 0) - (fresh.transfersMs['gpu'] ?? 0)).toBeLessThan(1);
    expect(fresh.transfersMs['cpu']).toBe(0);
    const onGpu = await engine.run(
      { op: 'matmul', a: square(engine, n), b: square(engine, n) },
      { strategy: { only: 'gpu' } },
    );
    const [c] = onGpu;
    expect(c?.residency()).toEqual(['gpu']);
    const b = await engine.run(
      { op: 'matmul', a: square(engine, n), b: square(engine, n) },
      { strategy: { only: 'gpu' } },
    );
    const next = engine.explain({ op: 'matmul', a: c!, b: b[0]! });
    expect(next.selection.backend).toBe('gpu');
  });

  it("learns an op's cost without its copies: neither uploads nor the download a view's gather needs", async () => {
    const { engine, gpu } = await simulatedEngine({ gpu: { transferBytesPerMs: 1e3 } }); // 1 MB/s: 64 KB = 64 ms
    const n = 128;
    const ops = 20;
    for (let i = 0; i < ops; i++) {
      const [c] = await engine.run(
        { op: 'matmul', a: square(engine, n), b: square(engine, n) },
        { strategy: { only: 'gpu' } },
      ); // two uploads each
      c?.dispose();
    }
    let base: Tensor | undefined;
    for (let i = 0; i < 2 * ops; i++) {
      // A transposed view of a tensor only the GPU holds: the gather downloads the base first (a copy, 64 ms).
      const [c] = await engine.run(
        { op: 'matmul', a: base?.transpose() ?? square(engine, n), b: square(engine, n) },
        { strategy: { only: 'gpu' } },
      );
      base?.dispose();
      base = c;
    }
    if (base === undefined) throw new Error('no output');
    const spec = { op: 'matmul', a: { dtype: 'f32', shape: [n, n] }, b: { dtype: 'f32', shape: [n, n] } } as const;
    const kernelMs = gpuLatency(spec, opWork(spec));
    const resident = await engine.run(
      { op: 'matmul', a: square(engine, n), b: square(engine, n) },
      { strategy: { only: 'gpu' } },
    );
    const e = engine.explain({ op: 'matmul', a: resident[0]!, b: base });
    expect(e.transfersMs['gpu']).toBe(0);
    expect(e.costsMs['gpu']).toBeCloseTo(kernelMs, 6); // 64 ms copies per call would show here
    expect(gpu.calls).toBe(3 * ops + 1);
  });

  it('applies gpuMinBatchSize only until the GPU has been measured', async () => {
    const { engine } = await simulatedEngine();
    const x = engine.tensor(new Float32Array(8 * 4096), [8, 4096]);
    const w = engine.tensor(new Float32Array(4096 * 4096), [4096, 4096]);
    const first = engine.explain({ op: 'matmul', a: x, b: w });
    expect(first.selection).toMatchObject({
      backend: 'cpu',
      reason: { kind: 'below-min-batch', batch: 8, minBatch: 64 },
    });
    await engine.run({ op: 'matmul', a: x, b: w }, { strategy: { only: 'gpu' } }); // warm-up run: timed, not learned from
    expect(engine.explain({ op: 'matmul', a: x, b: w }).selection.reason.kind).toBe('below-min-batch');
    await engine.run({ op: 'matmul', a: x, b: w }, { strategy: { only: 'gpu' } });
    const after = engine.explain({ op: 'matmul', a: x, b: w });
    expect(after.selection.backend).toBe('gpu');
    expect(after.selection.reason.kind).toBe('cost-model');
  });

  it('measures a GPU that gpuMinBatchSize kept out once the CPU is measured, then uses it when it is faster', async () => {
    const { engine } = await simulatedEngine();
    const x = engine.tensor(new Float32Array(8 * 4096), [8, 4096]); // batch 8: below gpuMinBatchSize (64)
    const w = engine.tensor(new Float32Array(4096 * 4096), [4096, 4096]); // CPU 6.7 ms, GPU 0.23 ms
    for (let i = 0; i < 48; i++) (await engine.matmul(x, w)).dispose();
    const events = engine.telemetry.opEvents();
    // The GPU's first run (its warm-up) is in the background while the CPU serves (reason `warming`); then it is
    // explored until a run is learned from (the first runs after it sat idle are cold and not learned from).
    expect(events.filter((e) => e.reason.kind === 'warming').map((e) => e.backend)).toContain('cpu');
    expect(new Set(events.filter((e) => e.reason.kind === 'exploring').map((e) => e.backend))).toEqual(
      new Set(['gpu']),
    );
    expect(events.slice(-5).map((e) => e.backend)).toEqual(Array(5).fill('gpu'));
    expect(events.filter((e) => e.backend === 'cpu').length).toBeLessThan(40);
  });

  it('does not measure a GPU kept out by gpuMinBatchSize whose estimate is far above the CPU time', async () => {
    const { engine } = await simulatedEngine();
    const x = engine.tensor(new Float32Array(8 * 64), [8, 64]); // CPU ~5 us; the GPU prior starts at its 100 us launch
    const w = square(engine, 64);
    for (let i = 0; i < 100; i++) (await engine.matmul(x, w)).dispose();
    expect(new Set(engine.telemetry.opEvents().map((e) => e.backend))).toEqual(new Set(['cpu']));
  });

  it('explain() changes nothing the scheduler learned', async () => {
    const { engine, cpu, gpu } = await simulatedEngine();
    const a = square(engine, 64);
    const before = engine.explain({ op: 'matmul', a, b: a });
    for (let i = 0; i < 100; i++) engine.explain({ op: 'matmul', a, b: a });
    expect(engine.explain({ op: 'matmul', a, b: a })).toEqual(before);
    expect(cpu.calls + gpu.calls).toBe(0);
    expect(engine.telemetry.summary().totalOps).toBe(0);
  });
});

describe('auto: hysteresis and exploration', () => {
  // Two backends whose speeds we set directly; each decision's bucket is the same size.
  async function twoCpus(ratio: { a: number; b: number }) {
    const clock = new ManualClock();
    const lat = { a: ratio.a, b: ratio.b };
    const a = new SimulatedBackend({ name: 'a', kind: 'cpu', priority: 1, latencyMs: () => lat.a, clock });
    const b = new SimulatedBackend({ name: 'b', kind: 'cpu', priority: 2, latencyMs: () => lat.b, clock });
    const { engine } = await simulatedEngine({ backends: [a, b], clock: clock.clock });
    return { engine, lat, a, b };
  }

  it('keeps a bucket on its backend for small wins until the win persists (switchAfter)', async () => {
    const { engine, lat } = await twoCpus({ a: 1, b: 2 });
    const x = square(engine, 32);
    for (let i = 0; i < 5; i++) await engine.matmul(x, x); // learn: a wins
    expect(engine.explain({ op: 'matmul', a: x, b: x }).selection.backend).toBe('a');
    lat.b = 0.9; // b is now faster, but by less than the 1.5x threshold
    // Measure b directly until its moving average (one old 2 ms sample, ten 0.9 ms) drops just below a's 1 ms.
    for (let i = 0; i < 10; i++) await engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'b' } });
    const costs = engine.explain({ op: 'matmul', a: x, b: x }).costsMs;
    expect(costs['b']).toBeLessThan(costs['a'] ?? 0);
    expect((costs['a'] ?? 0) / (costs['b'] ?? 1)).toBeLessThan(1.5);
    const picks: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [out] = await engine.run({ op: 'matmul', a: x, b: x });
      picks.push(engine.telemetry.opEvents().at(-1)!.backend);
      out?.dispose();
    }
    expect(picks.slice(0, 2)).toEqual(['a', 'a']); // hysteresis holds twice
    expect(picks.at(-1)).toBe('b'); // then the persistent win switches it
    const reasons = engine.telemetry.opEvents().map((e) => e.reason.kind);
    expect(reasons).toContain('hysteresis');
  });

  it('switches at once for a win above gpuSpeedupThreshold', async () => {
    const { engine, lat } = await twoCpus({ a: 1, b: 2 });
    const x = square(engine, 32);
    for (let i = 0; i < 5; i++) await engine.matmul(x, x);
    lat.b = 0.2;
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'b' } });
    await engine.matmul(x, x);
    expect(engine.telemetry.opEvents().at(-1)!.backend).toBe('b');
  });

  it('re-measures a close backend every exploreEvery decisions, never a far one', async () => {
    const close = await twoCpus({ a: 1, b: 1.5 });
    const x = square(close.engine, 32);
    for (let i = 0; i < 200; i++) await close.engine.matmul(x, x);
    const explored = close.engine.telemetry.opEvents().filter((e) => e.reason.kind === 'exploring');
    expect(explored.length).toBeGreaterThanOrEqual(3);
    expect(explored.length).toBeLessThanOrEqual(6); // bounded: ~1 per 50 decisions
    const far = await twoCpus({ a: 1, b: 10 });
    const y = square(far.engine, 32);
    for (let i = 0; i < 200; i++) await far.engine.matmul(y, y);
    expect(far.b.calls).toBeLessThanOrEqual(2); // a warm-up run and one learned run, never again
  });
});

describe('strategies', () => {
  it('gpu-preferred picks the GPU, cpu-preferred the CPU, only: never falls back', async () => {
    const { engine } = await simulatedEngine();
    const x = square(engine, 8);
    expect(engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }).selection).toMatchObject({
      backend: 'gpu',
      reason: { kind: 'gpu-available' },
    });
    expect(engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'cpu-preferred' }).selection.backend).toBe('cpu');
    const only = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: { only: 'gpu' } });
    expect(only.selection.backend).toBe('gpu');
    expect(only.fallbacks).toEqual([]);
  });

  it('gpu-preferred says why when no GPU can take the op', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new SimulatedBackend({
      name: 'gpu',
      kind: 'gpu',
      latencyMs: gpuLatency,
      clock,
      capabilities: [{ op: 'add', dtypes: ['f32'] }],
    });
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock });
    const x = square(engine, 8);
    const sel = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }).selection;
    expect(sel.backend).toBe('cpu');
    expect(sel.reason).toEqual({ kind: 'gpu-unavailable', why: 'gpu: matmul is not implemented' });
  });

  it('forceCpu keeps everything on the CPU', async () => {
    const { engine, gpu } = await simulatedEngine({ forceCpu: true });
    const x = square(engine, 512);
    for (let i = 0; i < 5; i++) await engine.matmul(x, x);
    expect(gpu.calls).toBe(0);
    const plan = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(plan.selection.reason.kind).toBe('force-cpu');
    expect(plan.skipped).toContainEqual({ backend: 'gpu', reason: `unavailable: ${FORCE_CPU_UNSTARTED}` }); // never initialised
  });

  it('memory constraint: a GPU short of memory is skipped with the numbers', async () => {
    const { engine } = await simulatedEngine({ gpu: { availableMemoryBytes: 1000 } });
    const x = square(engine, 512);
    const plan = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'auto' });
    expect(plan.selection.backend).toBe('cpu');
    expect(plan.selection.reason).toMatchObject({
      kind: 'memory-constraint',
      backend: 'gpu',
      availableBytes: 1000,
      requiredBytes: 3 * 512 * 512 * 4,
    });
  });
});

describe('fallback and circuit breaker', () => {
  it('re-runs a failed op on the next backend and records the error and the fallback', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const inner = new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock });
    const gpu = new FaultInjectingBackend(inner, faultSchedule({ 1: 'reject', 2: 'throw', 3: 'oom' }));
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock });
    const x = square(engine, 8);
    for (let i = 0; i < 3; i++) await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    const events = engine.telemetry.opEvents();
    expect(events.map((e) => [e.backend, e.ok])).toEqual([
      ['gpu', false],
      ['cpu', true],
      ['gpu', false],
      ['cpu', true],
      ['gpu', false],
      ['cpu', true],
    ]);
    expect(events[0]?.error).toContain('injected rejection');
    expect(events[1]?.reason).toMatchObject({ kind: 'error-fallback', failed: 'gpu' });
    expect(events[5]?.reason).toMatchObject({
      kind: 'error-fallback',
      error: expect.stringContaining('out of memory'),
    });
    expect(engine.telemetry.summary().fallbacks).toBe(3);
  });

  it('fails only when every backend failed, naming each failure', async () => {
    const clock = new ManualClock();
    const a = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'a', kind: 'cpu', latencyMs: cpuLatency, clock }),
      () => 'reject',
    );
    const b = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'b', kind: 'gpu', latencyMs: gpuLatency, clock }),
      () => 'oom',
    );
    const { engine } = await simulatedEngine({ backends: [a, b], clock: clock.clock });
    const x = square(engine, 8);
    const error = await engine.matmul(x, x).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllBackendsFailedError);
    if (!(error instanceof AllBackendsFailedError)) return;
    expect(error.failures.map((f) => f.backend).sort()).toEqual(['a', 'b']);
    expect(error.message).toMatch(/a: .*injected rejection/);
    expect(error.message).toMatch(/b: .*out of memory/);
  });

  it('{ only } does not fall back', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      () => 'reject',
    );
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock });
    const x = square(engine, 8);
    await expect(engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'gpu' } })).rejects.toThrow(
      AllBackendsFailedError,
    );
    expect(cpu.calls).toBe(0);
  });

  it('opens the circuit below the success-rate threshold, probes after the cool-down, closes on success', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    let failing = true;
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      () => (failing ? 'reject' : undefined),
    );
    const { engine } = await simulatedEngine({
      backends: [cpu, gpu],
      clock: clock.clock,
      tracker: { coolDownMs: 1000 },
    });
    const x = square(engine, 8);
    for (let i = 0; i < 5; i++) await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(gpu.calls).toBe(5);
    const open = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(open.selection.backend).toBe('cpu');
    expect(open.selection.reason).toEqual({ kind: 'gpu-unavailable', why: 'gpu: circuit open (success rate 0.00)' });
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(gpu.calls).toBe(5); // not called while open
    failing = false;
    clock.advance(1001);
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // the probe
    expect(gpu.calls).toBe(6);
    const stats = engine.trackerStats().find((s) => s.backend === 'gpu');
    expect(stats?.circuit).toBe('closed');
    const notices = engine.telemetry.noticeEvents().map((n) => n.kind);
    expect(notices).toEqual(expect.arrayContaining(['circuit-open', 'circuit-half-open', 'circuit-closed']));
  });

  it('a failed probe re-opens the circuit', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      () => 'reject',
    );
    const { engine } = await simulatedEngine({
      backends: [cpu, gpu],
      clock: clock.clock,
      tracker: { coolDownMs: 1000 },
    });
    const x = square(engine, 8);
    for (let i = 0; i < 5; i++) await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    clock.advance(1001);
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(gpu.calls).toBe(6);
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')?.circuit).toBe('open');
  });

  it('abandons an attempt past its deadline and re-runs it elsewhere', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      faultSchedule({ 1: 'hang' }),
    );
    // Deadlines use real timers; the manual clock only measures.
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, opDeadlineMs: 30 });
    const x = square(engine, 8);
    const [out] = await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(out?.shape).toEqual([8, 8]);
    const [first, second] = engine.telemetry.opEvents();
    expect(first?.error).toMatch(/did not finish within 30 ms/);
    expect(second?.backend).toBe('cpu');
  });

  it('skips a backend whose device was lost and re-initialises it later', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      faultSchedule({ 2: 'device-lost' }),
    );
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 100 });
    const x = square(engine, 8);
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // device lost here, falls back
    expect(gpu.health().state).toBe('unhealthy');
    const plan = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(plan.skipped[0]?.reason).toMatch(/unhealthy: injected device loss/);
    clock.advance(101);
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // triggers re-init in the background
    await new Promise((r) => setTimeout(r, 0));
    expect(gpu.health().state).toBe('healthy');
    expect(engine.telemetry.noticeEvents().map((n) => n.kind)).toEqual(
      expect.arrayContaining(['backend-unhealthy', 'backend-recovered']),
    );
  });

  it('keeps retrying a lost backend whose first re-init failed (a GPU process slow to restart), every interval', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      faultSchedule({ 1: 'device-lost' }),
    );
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 100 });
    const realInit = gpu.init.bind(gpu);
    let inits = 0;
    gpu.init = async () =>
      ++inits === 1 ? { ok: false, reason: 'the GPU process did not start in time' } : realInit();
    const x = square(engine, 8);
    const run = () => engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    await run(); // device lost, the cpu answers
    clock.advance(101);
    await run(); // first re-init: fails
    await new Promise((r) => setTimeout(r, 0));
    expect(engine.backends().find((b) => b.name === 'gpu')).toMatchObject({ available: false });
    await run(); // within the interval: no new attempt
    await new Promise((r) => setTimeout(r, 0));
    expect(inits).toBe(1);
    clock.advance(101);
    await run(); // second re-init: succeeds
    await new Promise((r) => setTimeout(r, 0));
    expect(inits).toBe(2);
    await run();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'gpu', ok: true });
  });

  it('sends no work to a backend whose re-init is still running, even once its health reads healthy', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      faultSchedule({ 1: 'device-lost' }),
    );
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 0 });
    const realInit = gpu.init.bind(gpu);
    let finishInit: () => void = () => undefined;
    // Like the GPU-process backend: the device is back (healthy) before init() has finished its own checks.
    gpu.init = async () => {
      const result = await realInit();
      await new Promise<void>((resolve) => (finishInit = resolve));
      return result;
    };
    const x = square(engine, 8);
    const run = () => engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    await run(); // device lost, the cpu answers
    await run(); // starts the re-init
    await new Promise((r) => setTimeout(r, 0));
    expect(gpu.health().state).toBe('healthy');
    const mid = engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' });
    expect(mid.selection.backend).toBe('cpu');
    expect(mid.skipped).toContainEqual(
      expect.objectContaining({ backend: 'gpu', reason: expect.stringMatching(/^recovering: /) }),
    );
    await run();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'cpu', ok: true });
    finishInit();
    await new Promise((r) => setTimeout(r, 0));
    expect(engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-recovered')).toHaveLength(1);
    await run();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'gpu', ok: true });
  });
});

describe('init failures', () => {
  it('an unavailable backend is reported with its reason and never chosen', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock });
    gpu.init = async () => ({ ok: false, reason: 'no adapter' });
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock });
    expect(engine.backends().find((b) => b.name === 'gpu')).toMatchObject({
      available: false,
      unavailableReason: 'no adapter',
    });
    const x = square(engine, 512);
    expect(engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }).selection.reason).toEqual({
      kind: 'gpu-unavailable',
      why: 'gpu: unavailable: no adapter',
    });
    expect(engine.telemetry.noticeEvents()).toContainEqual(
      expect.objectContaining({ kind: 'backend-unavailable', backend: 'gpu', detail: 'no adapter' }),
    );
  });
});

export type { OpWork };

describe('fallback-only backends', () => {
  it('are never chosen while another backend can run the op, but answer when it fails', async () => {
    const clock = new ManualClock();
    const oracle = new SimulatedBackend({
      name: 'oracle',
      kind: 'cpu',
      latencyMs: () => 0.001,
      clock,
      fallbackOnly: true,
    });
    let failing = false;
    const cpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: () => 1, clock }),
      () => (failing ? 'reject' : undefined),
    );
    const { engine } = await simulatedEngine({ backends: [cpu, oracle], clock: clock.clock });
    const x = square(engine, 16);
    for (let i = 0; i < 100; i++) await engine.matmul(x, x); // the oracle would be 1000x faster: still not chosen
    expect(oracle.calls).toBe(0);
    expect(engine.explain({ op: 'matmul', a: x, b: x }).fallbacks).toEqual(['oracle']);
    failing = true;
    await engine.matmul(x, x);
    expect(oracle.calls).toBe(1);
  });
});

describe('device replacement', () => {
  it('re-uploads a tensor whose copy was on a lost device instead of failing on it forever', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock });
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock }),
      faultSchedule({ 2: 'device-lost' }),
    );
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 0 });
    const x = square(engine, 8);
    const y = square(engine, 8);
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // x now has a copy on the gpu
    expect(x.residency()).toEqual(['host', 'gpu']);
    await engine.run({ op: 'matmul', a: y, b: y }, { strategy: 'gpu-preferred' }); // device lost here; the cpu answers
    await gpu.init(); // a new device
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // x's old copy is stale: refused, dropped, cpu answers
    expect(x.residency()).not.toContain('gpu');
    await engine.run({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }); // re-uploaded to the new device
    const last = engine.telemetry.opEvents().at(-1);
    expect(last).toMatchObject({ backend: 'gpu', ok: true });
    expect(x.residency()).toContain('gpu');
  });
});

describe('Scheduler.plan (unit)', () => {
  const request = (...candidates: Candidate[]): Parameters<Scheduler['plan']>[0] => ({
    op: 'matmul',
    opKey: 'matmul|f32',
    work: { flops: 1e6, bytes: 1e4, batch: 1 },
    candidates,
  });
  /** A scheduler over a fresh cost model and a breaker that opens after 5 failures and probes 100 ms later. */
  const setup = planBench;

  it('reports a memory shortfall only when lack of memory left nothing: the fewest bytes needed, the most free', () => {
    const { scheduler } = setup();
    const unusable = scheduler.plan(
      request(candidate('cpu', 'cpu', { unusable: 'unsupported' }), candidate('gpu', 'gpu', { unusable: 'lost' })),
      'auto',
      true,
    );
    expect(unusable).toMatchObject({ ok: false, shortfall: undefined });
    const short = scheduler.plan(
      request(
        candidate('cpu', 'cpu', { unusable: 'unsupported' }),
        candidate('gpu0', 'gpu', { requiredBytes: 1000, availableBytes: 100 }),
        candidate('gpu1', 'gpu', { requiredBytes: 800, availableBytes: 300 }),
      ),
      'auto',
      true,
    );
    expect(short).toMatchObject({ ok: false, shortfall: { requiredBytes: 800, availableBytes: 300 } });
  });

  it('says an open circuit moved the op to the CPU', () => {
    const { scheduler, openCircuit } = setup();
    openCircuit('gpu');
    const planned = scheduler.plan(
      request(candidate('cpu', 'cpu', { priorMs: 5 }), candidate('gpu', 'gpu')),
      'auto',
      true,
    );
    if (!planned.ok) throw new Error('no plan');
    expect(planned.plan.selection).toMatchObject({ backend: 'cpu', reason: { kind: 'circuit-open', backend: 'gpu' } });
    expect(planned.plan.fallbacks).toEqual(['gpu']); // still a last resort
  });

  it('with every circuit open, runs on the cheapest of them anyway rather than fail the call', () => {
    const { scheduler, openCircuit } = setup();
    openCircuit('cpu');
    openCircuit('gpu');
    const planned = scheduler.plan(
      request(candidate('cpu', 'cpu', { priorMs: 5 }), candidate('gpu', 'gpu')),
      'auto',
      true,
    );
    if (!planned.ok) throw new Error('no plan');
    expect(planned.plan.selection).toMatchObject({ backend: 'gpu', estimatedMs: 1, reason: { kind: 'circuit-open' } });
    expect(planned.plan.fallbacks).toEqual(['cpu']);
    expect(planned.cacheable).toBe(false);
  });

  it('cpu-preferred takes a CPU backend even when slower (user-preference), else the cheapest (only-capable)', () => {
    const { scheduler } = setup();
    const withCpu = scheduler.plan(
      request(candidate('gpu', 'gpu'), candidate('cpu', 'cpu', { priorMs: 5 })),
      'cpu-preferred',
      true,
    );
    if (!withCpu.ok) throw new Error('no plan');
    expect(withCpu.plan.selection).toEqual({
      backend: 'cpu',
      reason: { kind: 'user-preference', strategy: 'cpu-preferred' },
      estimatedMs: 5,
    });
    const noCpu = scheduler.plan(
      request(candidate('cpu', 'cpu', { unusable: 'unsupported' }), candidate('gpu', 'gpu')),
      'cpu-preferred',
      true,
    );
    if (!noCpu.ok) throw new Error('no plan');
    expect(noCpu.plan.selection).toMatchObject({
      backend: 'gpu',
      reason: { kind: 'only-capable', skipped: [{ backend: 'cpu', reason: 'unsupported' }] },
    });
  });

  it('explain (commit false) counts no decision and takes no probe; a committed plan on a half-open circuit is its probe', () => {
    const { scheduler, costModel, tracker, openCircuit, advance } = setup();
    openCircuit('gpu');
    advance(100); // half-open: the next call there is the probe
    const req = request(candidate('cpu', 'cpu', { priorMs: 5 }), candidate('gpu', 'gpu'));
    const explained = scheduler.plan(req, 'gpu-preferred', false);
    if (!explained.ok) throw new Error('no plan');
    expect(explained.plan.selection.backend).toBe('gpu');
    expect(explained.plan.probe).toBe(false);
    expect(costModel.decisionCount('matmul|f32')).toBe(0);
    expect(tracker.wouldAdmit('matmul', 'gpu')).toBe(true);
    const committed = scheduler.plan(req, 'gpu-preferred', true);
    if (!committed.ok) throw new Error('no plan');
    expect(committed.plan).toMatchObject({ selection: { backend: 'gpu' }, probe: true });
    expect(committed.cacheable).toBe(false);
    expect(costModel.decisionCount('matmul|f32')).toBe(1);
  });
});
