// Serving while a GPU warms up (issue 31): `auto` gives a call to a CPU backend while the GPU it would choose runs that
// op for the first time in the background (reason `warming`), then moves to the GPU once it is measured faster; a
// profile names the ops to warm up at start, which run on zeros before any call needs them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILES, Engine, type Tensor } from '@tandem/core';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

const N = 256; // a matmul the harness's GPU runs 20x faster than its CPU

const noticesOf = (engine: Engine, kind: string) => engine.telemetry.noticeEvents().filter((n) => n.kind === kind);

describe('serving from the CPU while a GPU warms up', () => {
  it('the first call runs on the CPU with reason warming, the GPU runs it once in the background, then wins', async () => {
    const { engine, cpu, gpu } = await simulatedEngine();
    const a = square(engine, N);
    expect(engine.explain({ op: 'matmul', a, b: a }).selection).toMatchObject({
      backend: 'cpu',
      reason: { kind: 'warming', backend: 'gpu' },
    });
    await engine.matmul(a, a);
    expect(engine.telemetry.opEvents()[0]).toMatchObject({ backend: 'cpu', reason: { kind: 'warming' } });
    expect(cpu.calls).toBe(1);
    await engine.dispose(); // waits for the warm-up
    expect(gpu.calls).toBe(1);
    expect(noticesOf(engine, 'backend-warmed')[0]?.detail).toMatch(/^matmul\|f32: first run in the background took/);

    const { engine: second, gpu: gpu2 } = await simulatedEngine();
    const b = square(second, N);
    for (let i = 0; i < 8; i++) await second.matmul(b, b);
    const backends = second.telemetry.opEvents().map((e) => e.backend);
    expect(backends.slice(-3)).toEqual(['gpu', 'gpu', 'gpu']);
    expect(gpu2.calls).toBe(backends.filter((x) => x === 'gpu').length + 1); // + the warm-up
  });

  it('a GPU whose kernels are built ahead (ROCm: compilesOnFirstRun false) runs its first call itself', async () => {
    const { engine, gpu } = await simulatedEngine({ gpu: { compilesOnFirstRun: false } });
    const a = square(engine, N);
    await engine.matmul(a, a);
    expect(engine.telemetry.opEvents()).toMatchObject([{ backend: 'gpu', reason: { kind: 'cost-model' } }]);
    await engine.dispose();
    expect(gpu.calls).toBe(1);
    expect(engine.profile.export().warmUps).toEqual([]); // nothing to compile ahead next time
  });

  it('the stand-in is the cheapest backend that needs no first run: a GPU with kernels built ahead before the CPU', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const compiles = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 5, latencyMs: gpuLatency, clock });
    const ahead = new SimulatedBackend({
      name: 'ahead',
      kind: 'gpu',
      priority: 20,
      latencyMs: gpuLatency,
      clock,
      compilesOnFirstRun: false,
      // Priced 2x slower than the compiling GPU (and far faster than the CPU); not explored (exploreMaxRatio 1).
      performance: { ...DEFAULT_PROFILES.gpu, flopsPerMs: DEFAULT_PROFILES.gpu.flopsPerMs / 2 },
    });
    const engine = await Engine.create({
      clock: clock.clock,
      backends: [cpu, compiles, ahead],
      scheduler: { exploreMaxRatio: 1 },
    });
    const a = square(engine, N);
    expect(engine.explain({ op: 'matmul', a, b: a }).selection).toMatchObject({
      backend: 'ahead',
      reason: { kind: 'warming', backend: 'gpu' },
    });
    await engine.matmul(a, a);
    await engine.dispose();
    expect([cpu.calls, compiles.calls, ahead.calls]).toEqual([0, 1, 1]);
  });

  it('calls made while the warm-up runs all go to the CPU, and start no second warm-up', async () => {
    const { engine, gpu } = await simulatedEngine();
    const a = square(engine, N);
    const results = await Promise.all(Array.from({ length: 4 }, () => engine.matmul(a, a)));
    expect(results).toHaveLength(4);
    expect(engine.telemetry.opEvents().map((e) => e.reason.kind)).toEqual(Array(4).fill('warming'));
    await engine.dispose();
    expect(gpu.calls).toBe(1);
  });

  it('off with scheduler.warmInBackground: false, and never for a strategy that names the GPU', async () => {
    const { engine: off } = await simulatedEngine({ scheduler: { warmInBackground: false } });
    const a = square(off, N);
    expect(off.explain({ op: 'matmul', a, b: a }).selection.backend).toBe('gpu');
    const { engine } = await simulatedEngine();
    const b = square(engine, N);
    expect(engine.explain({ op: 'matmul', a: b, b }, { strategy: 'gpu-preferred' }).selection.backend).toBe('gpu');
    expect(engine.explain({ op: 'matmul', a: b, b }, { strategy: { only: 'gpu' } }).selection.backend).toBe('gpu');
    const refused = await simulatedEngine({ scheduler: { warmInBackground: 'yes' as never } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ argument: 'createEngine.scheduler.warmInBackground', value: 'yes' });
  });

  it('a warm-up that fails counts against the GPU with a warm-up-failed notice; the call it stood beside is unharmed', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const inner = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock });
    const gpu = new FaultInjectingBackend(inner, faultSchedule({ 1: 'reject' }));
    const engine = await Engine.create({ clock: clock.clock, backends: [cpu, gpu] });
    const a = square(engine, N);
    expect((await engine.matmul(a, a)).shape).toEqual([N, N]);
    expect(engine.telemetry.opEvents()).toMatchObject([{ backend: 'cpu', ok: true, reason: { kind: 'warming' } }]);
    await engine.whenWarm();
    expect(gpu.injected.reject).toBe(1);
    expect(noticesOf(engine, 'warm-up-failed')).toMatchObject([
      { backend: 'gpu', op: 'matmul', detail: 'matmul|f32: [gpu] injected rejection on call 1' },
    ]);
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')).toMatchObject({ failures: 1 });
    // Not warmed up: the next call stands the CPU in again and retries the warm-up, which succeeds.
    expect(engine.explain({ op: 'matmul', a, b: a }).selection.reason).toMatchObject({ kind: 'warming' });
    await engine.matmul(a, a);
    await engine.whenWarm();
    expect(gpu.calls).toBe(2);
    // The success closes nothing (the circuit never opened): the failure stays in the window.
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')).toMatchObject({
      successes: 1,
      failures: 1,
      successRate: 0.5,
    });
  });

  it('an input the caller disposes during the warm-up ends it without counting against the GPU', async () => {
    const { engine } = await simulatedEngine();
    const a: Tensor<'f32'> = square(engine, N);
    const out = await engine.matmul(a, a);
    a.dispose();
    out.dispose();
    await engine.dispose();
    expect(noticesOf(engine, 'warm-up-failed')).toEqual([]);
    expect(engine.trackerStats().every((s) => s.failures === 0)).toBe(true);
  });
});

describe('warm-ups a profile names', () => {
  it('are saved with the profile (those the GPU was fastest on) and run on zeros at import, before any call', async () => {
    const { engine: first } = await simulatedEngine();
    const a = square(first, N);
    for (let i = 0; i < 8; i++) await first.matmul(a, a);
    await first.dispose();
    const profile = first.profile.export();
    expect(profile.warmUps).toEqual([
      {
        backend: 'gpu',
        op: { op: 'matmul', a: { dtype: 'f32', shape: [N, N] }, b: { dtype: 'f32', shape: [N, N] } },
      },
    ]);

    const { engine: next, gpu } = await simulatedEngine();
    expect(next.profile.import(JSON.parse(JSON.stringify(profile))).used).toBe(true);
    expect(noticesOf(next, 'profile-loaded')[0]?.detail).toMatch(/1 op to warm up/);
    const b = square(next, N);
    await next.whenWarm();
    expect(gpu.calls).toBe(1);
    expect(next.telemetry.opEvents()).toMatchObject([{ backend: 'gpu', label: 'warm-up (profile)', ok: true }]);
    expect(next.explain({ op: 'matmul', a: b, b }).selection).not.toMatchObject({ reason: { kind: 'warming' } });
  });

  it('are not saved for a GPU that was not the fastest on the op', async () => {
    const { engine: first } = await simulatedEngine({ gpu: { latencyMs: () => 40 } }); // 20x slower than the CPU
    const a = square(first, N);
    for (let i = 0; i < 12; i++) await first.matmul(a, a);
    await first.dispose();
    expect(first.profile.export().warmUps).toEqual([]);
  });

  it('are not run for a software GPU (SwiftShader), whose compiling would take the CPU from the calls', async () => {
    const { engine: first } = await simulatedEngine();
    const a = square(first, N);
    for (let i = 0; i < 8; i++) await first.matmul(a, a);
    await first.dispose();
    const { engine: next, gpu } = await simulatedEngine({ gpu: { software: true } });
    expect(next.profile.import(first.profile.export()).used).toBe(true);
    await next.whenWarm();
    expect(gpu.calls).toBe(0);
  });

  it('a warm-up entry that is not an op over tensor specs makes the profile ignored, with a notice', async () => {
    const { engine: first } = await simulatedEngine();
    const profile = first.profile.export();
    const { engine } = await simulatedEngine();
    const bad = { ...profile, warmUps: [{ backend: 'gpu', op: { op: 'matmul', a: { dtype: 'f32', shape: [-1] } } }] };
    expect(engine.profile.import(JSON.stringify(bad)).used).toBe(false);
    expect(noticesOf(engine, 'profile-ignored')[0]?.detail).toMatch(/warmUps\[0\]\.op is not an op over tensor specs/);
  });

  it('an entry whose shapes the op refuses is noticed as warm-up-failed, without counting against the GPU', async () => {
    const { engine: first } = await simulatedEngine();
    const profile = first.profile.export();
    const { engine } = await simulatedEngine();
    const mismatched = { op: 'matmul', a: { dtype: 'f32', shape: [2, 3] }, b: { dtype: 'f32', shape: [4, 5] } };
    const text = JSON.stringify({ ...profile, warmUps: [{ backend: 'gpu', op: mismatched }] });
    expect(engine.profile.import(text).used).toBe(true);
    await engine.dispose();
    expect(noticesOf(engine, 'warm-up-failed')[0]?.detail).toMatch(/^matmul\|f32 \(profile\): .*b\.shape/);
    expect(engine.trackerStats().every((s) => s.failures === 0)).toBe(true);
  });
});
