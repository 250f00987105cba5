// What a call's attempt teaches the engine (engine-execution.ts): which measured times reach the cost model and the
// decision cache, the profile's warm-up example, how the circuit breaker's probe slot is kept while a probe call is in
// flight, and the error of a CSR array disposed while spreadActivation checks it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortedError, BackendError, DisposedError, type RunResult, Scheduler } from '@tandem/core';
import { simulatedEngine, square } from '../scheduler/harness.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the decision cache', () => {
  it('a GPU call just after the GPU sat idle does not end the reuse of a CPU plan, however fast it ran', async () => {
    const { engine, clock, gpu } = await simulatedEngine();
    const a = square(engine, 32);
    await engine.matmul(a, a, { strategy: { only: 'gpu' } }); // the GPU has run: a later pause makes it idle
    for (let i = 0; i < 3; i++) await engine.matmul(a, a);
    expect(engine.telemetry.latestOpEvent()?.backend).toBe('cpu');
    gpu.setLatency(() => 1e-6); // far faster than the CPU plan's estimate
    clock.advance(100);
    await engine.matmul(a, a, { strategy: { only: 'gpu' } }); // cold: its time says how long the GPU took to wake up
    const plan = vi.spyOn(Scheduler.prototype, 'plan');
    await engine.matmul(a, a);
    expect(plan).not.toHaveBeenCalled();
    expect(engine.telemetry.latestOpEvent()?.backend).toBe('cpu');
  });

  it('the same GPU call made while the GPU is warm ends the reuse of the CPU plan: the next call plans afresh', async () => {
    const { engine, gpu } = await simulatedEngine();
    const a = square(engine, 32);
    await engine.matmul(a, a, { strategy: { only: 'gpu' } });
    for (let i = 0; i < 3; i++) await engine.matmul(a, a);
    gpu.setLatency(() => 1e-6);
    await engine.matmul(a, a, { strategy: { only: 'gpu' } });
    const plan = vi.spyOn(Scheduler.prototype, 'plan');
    await engine.matmul(a, a);
    expect(plan).toHaveBeenCalledTimes(1);
  });
});

describe('a fallback that succeeds', () => {
  it("ends the reuse of a plan another call cached meanwhile for another backend, when it ran within that plan's estimate", async () => {
    const { engine, cpu, gpu } = await simulatedEngine({ tracker: { minCalls: 50 } }); // one failure leaves it closed
    const preferGpu = { strategy: 'gpu-preferred' } as const;
    const a = square(engine, 32);
    for (let i = 0; i < 3; i++) await engine.matmul(a, a, preferGpu); // the GPU's plan is cached
    vi.spyOn(gpu, 'run').mockRejectedValueOnce(new BackendError('INJECTED', 'gpu', 'broken'));
    const realRun = cpu.run.bind(cpu);
    let finishCpu: () => void = () => undefined;
    const cpuRun = vi.spyOn(cpu, 'run').mockImplementationOnce(
      (op, outputs) =>
        new Promise<RunResult>((resolve) => {
          finishCpu = () => void realRun(op, outputs).then(resolve);
        }),
    );
    const failing = engine.matmul(a, a, preferGpu); // the reused plan's GPU fails: the CPU runs it instead
    await vi.waitFor(() => expect(cpuRun).toHaveBeenCalled());
    await engine.matmul(a, a, preferGpu); // meanwhile a call plans afresh and caches the GPU again
    finishCpu();
    await failing; // the CPU's 0.005 ms is within the GPU plan's 0.1 ms estimate: that plan may no longer win
    const plan = vi.spyOn(Scheduler.prototype, 'plan');
    await engine.matmul(a, a, preferGpu);
    expect(plan).toHaveBeenCalledTimes(1);
  });
});

describe("the profile's warm-up example of an op on a compiling GPU", () => {
  it('is its first run there: when that run was too large to warm up on zeros, later smaller runs give none', async () => {
    const { engine } = await simulatedEngine();
    const onlyGpu = { strategy: { only: 'gpu' } } as const;
    const large = square(engine, 2900); // 2 x 33.6 MB of inputs: over the 64 MiB a warm-up may allocate
    (await engine.matmul(large, large, onlyGpu)).dispose();
    large.dispose();
    const small = square(engine, 256);
    for (let i = 0; i < 3; i++) (await engine.matmul(small, small, onlyGpu)).dispose();
    expect(engine.profile.export().warmUps).toEqual([]);
  });
});

describe('the time a call is learned from', () => {
  it("includes the time it waited for another call's upload of its input, not its own copies", async () => {
    const { engine, clock, gpu } = await simulatedEngine();
    const onlyGpu = { strategy: { only: 'gpu' } } as const;
    const small = square(engine, 4);
    for (let i = 0; i < 2; i++) await engine.matmul(small, small, onlyGpu); // the GPU's warm-up run of matmul is done
    // Two 16 x 16 views whose bases live only on the GPU: each call gathers its own on the host (its own copies).
    const views = [];
    for (let i = 0; i < 2; i++) views.push((await engine.scale(square(engine, 16), 1, onlyGpu)).transpose());
    const b = square(engine, 16);
    const realUpload = gpu.upload.bind(gpu);
    let finishUpload: () => void = () => undefined;
    const upload = vi.spyOn(gpu, 'upload').mockImplementationOnce(
      (data) =>
        new Promise((resolve) => {
          finishUpload = () => {
            clock.advance(50);
            void realUpload(data).then(resolve);
          };
        }),
    );
    const first = engine.matmul(b, b, onlyGpu); // uploads b: 50 ms, a copy of its own
    const waiting = views.map((v) => engine.matmul(v, b, onlyGpu)); // each waits for that upload of b
    await vi.waitFor(() => expect(upload).toHaveBeenCalledTimes(3)); // b's, then each gathered view's
    await new Promise((resolve) => setImmediate(resolve));
    finishUpload();
    await Promise.all([first, ...waiting]);
    // The GPU runs a 16 x 16 matmul in 0.1 ms; two of the three calls of that size are learned at the 50 ms wait plus
    // the runs after it (0.1 ms each, on one clock): the estimate is theirs, not the run's alone.
    const estimate = engine.explain({ op: 'matmul', a: b, b }, onlyGpu).costsMs['gpu'] ?? 0;
    expect(estimate).toBeGreaterThan(50);
    expect(estimate).toBeLessThan(50.5);
  });
});

describe('a call that overlapped a background warm-up', () => {
  it('is not learned from, even when the warm-up ended before the call did', async () => {
    const { engine, clock, cpu, gpu } = await simulatedEngine();
    const onlyCpu = { strategy: { only: 'cpu' } } as const;
    const x = engine.tensor(new Float32Array(16), [16]);
    await engine.scale(x, 2, onlyCpu); // the CPU's warm-up run of scale
    const cpuEstimate = () => engine.explain({ op: 'scale', x, factor: 2 }).costsMs['cpu'] ?? 0; // a plan made afresh
    const prior = cpuEstimate();
    const realGpuRun = gpu.run.bind(gpu);
    let finishWarmUp: () => void = () => undefined;
    vi.spyOn(gpu, 'run').mockImplementationOnce(
      (op, outputs) =>
        new Promise<RunResult>((resolve) => {
          finishWarmUp = () => void realGpuRun(op, outputs).then(resolve);
        }),
    );
    const a = square(engine, 256);
    await engine.matmul(a, a); // the CPU serves it while the GPU warms up in the background
    expect(engine.telemetry.latestOpEvent()?.reason.kind).toBe('warming');
    const realCpuRun = cpu.run.bind(cpu);
    let finishCpu: () => void = () => undefined;
    const cpuRun = vi.spyOn(cpu, 'run').mockImplementationOnce(
      (op, outputs) =>
        new Promise<RunResult>((resolve) => {
          finishCpu = () => {
            clock.advance(100); // the host was busy with the warm-up: 100 ms for a 16-element scale
            void realCpuRun(op, outputs).then(resolve);
          };
        }),
    );
    const call = engine.scale(x, 2, onlyCpu);
    await vi.waitFor(() => expect(cpuRun).toHaveBeenCalled());
    finishWarmUp();
    await engine.whenWarm();
    finishCpu();
    await call;
    expect(cpuEstimate()).toBe(prior);
  });
});

describe("the circuit breaker's probe slot", () => {
  it('is kept by the probe in flight when another call on the half-open circuit is aborted: no second probe starts', async () => {
    const { engine, clock, gpu } = await simulatedEngine({ tracker: { minCalls: 1, coolDownMs: 10 } });
    const a = square(engine, 4);
    const onlyGpu = { strategy: { only: 'gpu' } } as const;
    await engine.matmul(a, a, onlyGpu); // a on the GPU
    const realRun = gpu.run.bind(gpu);
    const spy = vi.spyOn(gpu, 'run');
    spy.mockRejectedValueOnce(new Error('broken'));
    await engine.matmul(a, a, onlyGpu).catch(() => undefined);
    const circuit = () => engine.trackerStats().find((s) => s.backend === 'gpu' && s.op === 'matmul')?.circuit;
    expect(circuit()).toBe('open');
    clock.advance(20);
    // The probe: its run waits until the test lets it finish.
    let finishProbe: () => void = () => undefined;
    spy.mockImplementationOnce(
      (op, outputs) =>
        new Promise<RunResult>((resolve) => {
          finishProbe = () => void realRun(op, outputs).then(resolve);
        }),
    );
    const probe = engine.matmul(a, a, onlyGpu);
    await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(2));
    // Another call, let through as a last resort, is aborted by its caller while its input uploads.
    let finishUpload: () => void = () => undefined;
    const realUpload = gpu.upload.bind(gpu);
    const upload = vi.spyOn(gpu, 'upload').mockImplementationOnce(
      (data) =>
        new Promise((resolve) => {
          finishUpload = () => void realUpload(data).then(resolve);
        }),
    );
    const abort = new AbortController();
    const q = square(engine, 4);
    const aborted = engine.matmul(q, q, { ...onlyGpu, signal: abort.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upload).toHaveBeenCalled());
    abort.abort();
    finishUpload();
    expect(await aborted).toBeInstanceOf(AbortedError);
    // A third call succeeds while the probe is still in flight: not being the probe, it does not close the circuit.
    await engine.matmul(a, a, onlyGpu);
    expect(circuit()).not.toBe('closed');
    finishProbe();
    await probe;
    expect(circuit()).toBe('closed');
  });
});

describe("spreadActivation's check of its CSR arrays", () => {
  it("is the caller's DisposedError, naming the array, when the caller disposes rowPtr while the check runs", async () => {
    const { engine } = await simulatedEngine();
    const rowPtr = engine.tensor(Uint32Array.from([0, 1, 2, 2]), [4]);
    const colIdx = engine.tensor(Uint32Array.from([1, 2]), [2]);
    const weights = engine.tensor(new Float32Array(2).fill(1), [2]);
    const initial = engine.tensor(new Float32Array(3).fill(1), [3]);
    const options = { decay: 0.5, threshold: 0, iterations: 2 };
    const call = engine.spreadActivation({ rowPtr, colIdx, weights }, initial, options).catch((e: unknown) => e);
    rowPtr.dispose(); // after the call's own checks of its arguments, before the CSR check reads the bytes
    const error = await call;
    expect(error).toBeInstanceOf(DisposedError);
    expect((error as DisposedError).message).toBe('spreadActivation.rowPtr was used after dispose()');
  });
});
