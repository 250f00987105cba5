// What each attempt of a call leaves behind (engine-execution.ts): its op event (call id, shapes, duration, the
// estimate a fallback was tried with), the failures listed when every backend fails (skipped ones included), the
// backend-unhealthy notices of a failed attempt, and the buffers freed when a result is refused, aborted or made
// from an input disposed while it ran.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AbortedError,
  AllBackendsFailedError,
  BackendError,
  DeviceLostError,
  DisposedError,
  type Engine,
  type RunResult,
} from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const onlyGpu = { strategy: { only: 'gpu' } } as const;

/** An engine whose GPU run() waits until `finish` is called (the result it would have given is made then). */
async function engineWithPendingGpuRun() {
  const sim = await simulatedEngine();
  const run = sim.gpu.run.bind(sim.gpu);
  let finish: (alter?: (r: RunResult) => RunResult) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  vi.spyOn(sim.gpu, 'run').mockImplementationOnce(
    (op, outputs) =>
      new Promise<RunResult>((resolve, reject) => {
        finish = (alter = (r) => r) => void run(op, outputs).then((r) => resolve(alter(r)));
        fail = reject;
      }),
  );
  const free = vi.spyOn(sim.gpu, 'free');
  const started = (): Promise<void> => vi.waitFor(() => expect(sim.gpu.run).toHaveBeenCalled());
  return {
    ...sim,
    finish: (alter?: (r: RunResult) => RunResult) => finish(alter),
    fail: (e: unknown) => fail(e),
    free,
    started,
  };
}

describe("a call's op events", () => {
  it("number the calls 1, 2, ... and give the inputs' shapes and the time the attempt took", async () => {
    const { engine, clock } = await simulatedEngine();
    clock.advance(1000);
    const a = square(engine, 4);
    const b = engine.tensor(new Float32Array(8), [4, 2]);
    await engine.matmul(a, b, onlyGpu);
    await engine.matmul(a, a, onlyGpu);
    const events = engine.telemetry.opEvents();
    expect(events.map((e) => e.callId)).toEqual([1, 2]);
    expect(events.map((e) => e.shapes)).toEqual(['4x4, 4x2', '4x4, 4x4']);
    // The harness's GPU takes 0.1 ms + flops / 2e9 ms; a 4x4 by 4x2 matmul is 2 * 4 * 4 * 2 flops.
    expect(events[0]?.durationMs).toBeCloseTo(0.1 + (2 * 4 * 4 * 2) / 2e9, 9);
  });

  it("a fallback is tried with its own estimate from the plan, after the failed attempt's event with its time", async () => {
    const { engine, clock, gpu } = await simulatedEngine({ recoveryIntervalMs: 1e9 });
    clock.advance(1000);
    vi.spyOn(gpu, 'run').mockImplementationOnce(async () => {
      clock.advance(2);
      throw new BackendError('INJECTED', 'gpu', 'injected rejection');
    });
    const a = square(engine, 4);
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    const [failed, fallback] = engine.telemetry.opEvents();
    expect(failed).toMatchObject({ backend: 'gpu', ok: false, attempt: 1, durationMs: 2 });
    expect(fallback).toMatchObject({ backend: 'cpu', ok: true, attempt: 2 });
    const planned = fallback?.costsMs['cpu'];
    expect(planned).toBeGreaterThan(0);
    expect(fallback?.estimatedMs).toBe(planned);
  });
});

describe('the bytes an attempt moved', () => {
  it("count the copy of a view's base from the device, on top of the uploads", async () => {
    const { engine } = await simulatedEngine();
    const a = square(engine, 4);
    const onGpu = await engine.matmul(a, a, onlyGpu);
    await engine.matmul(onGpu.transpose(), a, { strategy: { only: 'cpu' } });
    const [, gathered] = engine.telemetry.opEvents();
    // 64 bytes read back from the GPU to gather the view, then the gathered copy and `a` bound on the CPU.
    expect(gathered).toMatchObject({ backend: 'cpu', bytesMoved: 64 + 64 + 64 });
  });

  it("an input's copy on a backend that reports itself unhealthy after a failure is dropped: the next call uploads it again", async () => {
    const { engine, gpu } = await simulatedEngine({ recoveryIntervalMs: 0 });
    const a = square(engine, 4);
    await engine.matmul(a, a, onlyGpu);
    vi.spyOn(gpu, 'run').mockImplementationOnce(async () => {
      vi.spyOn(gpu, 'health').mockReturnValueOnce({ state: 'unhealthy', reason: 'driver reset' });
      throw new BackendError('INJECTED', 'gpu', 'broken');
    });
    await engine.matmul(a, a, onlyGpu).catch(() => undefined);
    await engine.matmul(a, a, onlyGpu);
    const events = engine.telemetry.opEvents().filter((e) => e.ok);
    expect(events.map((e) => e.bytesMoved)).toEqual([64, 64]);
  });
});

describe('with telemetry counters only', () => {
  it('a successful attempt takes no sequence number: the notices after it are numbered on without a gap', async () => {
    const { engine, gpu } = await simulatedEngine({ telemetry: false, recoveryIntervalMs: 1e9 });
    const a = square(engine, 4);
    await engine.matmul(a, a, onlyGpu);
    vi.spyOn(gpu, 'run').mockRejectedValueOnce(new DeviceLostError('gpu', 'context lost'));
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    const notices = engine.telemetry.noticeEvents();
    expect(notices.map((n) => n.kind)).toEqual(['backend-ready', 'backend-ready', 'backend-unhealthy']);
    expect(notices.map((n) => n.seq)).toEqual([1, 2, 3]);
    const counters = engine.telemetry.counterList().map(({ op, backend, ok, failed }) => ({ op, backend, ok, failed }));
    expect(counters).toEqual([
      { op: 'matmul', backend: 'gpu', ok: 1, failed: 1 },
      { op: 'matmul', backend: 'cpu', ok: 1, failed: 0 },
    ]);
  });
});

describe('when every backend fails', () => {
  it('the error lists a backend that could not run the op as skipped, with why', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: cpuLatency, clock, capabilities: [] });
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: gpuLatency, clock });
    vi.spyOn(gpu, 'run').mockRejectedValue(new BackendError('INJECTED', 'gpu', 'broken'));
    const { engine } = await simulatedEngine({ backends: [cpu, gpu] });
    const a = square(engine, 4);
    const error = await engine.matmul(a, a).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllBackendsFailedError);
    const failures = (error as AllBackendsFailedError).failures;
    expect(failures.map((f) => f.backend)).toEqual(['cpu', 'gpu']);
    expect(failures[0]?.error).toMatch(/^skipped: \S/);
    expect(failures[1]?.error).toBe('[gpu] broken');
  });
});

describe('the backend-unhealthy notice of a failed attempt', () => {
  const unhealthy = (engine: Engine) => engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-unhealthy');

  it('is not given for an ordinary failure of a healthy backend', async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'run').mockRejectedValueOnce(new BackendError('INJECTED', 'gpu', 'broken'));
    const a = square(engine, 4);
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(unhealthy(engine)).toEqual([]);
  });

  it("gives the backend's own reason when it reports itself unhealthy after any failure", async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'run').mockImplementationOnce(async () => {
      vi.spyOn(gpu, 'health').mockReturnValue({ state: 'unhealthy', reason: 'driver reset' });
      throw new BackendError('INJECTED', 'gpu', 'broken');
    });
    const a = square(engine, 4);
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(unhealthy(engine)).toMatchObject([{ backend: 'gpu', detail: 'driver reset' }]);
  });

  it('gives the error when the device was lost though the backend already reports itself healthy again', async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'run').mockRejectedValueOnce(new DeviceLostError('gpu', 'context lost'));
    const a = square(engine, 4);
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(unhealthy(engine)).toMatchObject([
      { backend: 'gpu', detail: new DeviceLostError('gpu', 'context lost').message },
    ]);
  });
});

describe('buffers a call will not use are freed', () => {
  it('outputs refused for their size are freed; an output the backend does not own is not freed there', async () => {
    const { engine, gpu } = await simulatedEngine();
    const run = gpu.run.bind(gpu);
    const free = vi.spyOn(gpu, 'free');
    const a = square(engine, 4);
    let made: RunResult | undefined;
    vi.spyOn(gpu, 'run').mockImplementationOnce(async (op, outputs) => {
      made = await run(op, outputs);
      return { ...made, outputs: made.outputs.map((b) => ({ ...b, byteLength: 4 })) };
    });
    await engine.matmul(a, a, onlyGpu).catch(() => undefined);
    expect(free.mock.calls.map(([b]) => b.id)).toEqual(made?.outputs.map((b) => b.id));
    free.mockClear();
    vi.spyOn(gpu, 'run').mockImplementationOnce(async (op, outputs) => {
      const r = await run(op, outputs);
      return { ...r, outputs: r.outputs.map((b) => ({ ...b, backend: 'cpu' })) };
    });
    await engine.matmul(a, a, onlyGpu).catch(() => undefined);
    expect(free).not.toHaveBeenCalled();
  });

  it('a wrong number of outputs is refused with exactly that reason', async () => {
    const { engine, gpu } = await simulatedEngine();
    vi.spyOn(gpu, 'run').mockResolvedValueOnce({ outputs: [], kernelMs: 1 });
    const a = square(engine, 4);
    const error = (await engine.matmul(a, a, onlyGpu).catch((e: unknown) => e)) as AllBackendsFailedError;
    expect(error.failures.at(-1)).toEqual({ backend: 'gpu', error: '[gpu] returned 0 outputs, expected 1' });
  });

  it('a result that comes after the caller aborted is freed', async () => {
    const { engine, finish, free, started } = await engineWithPendingGpuRun();
    const abort = new AbortController();
    const a = square(engine, 4);
    const call = engine.matmul(a, a, { ...onlyGpu, signal: abort.signal }).catch((e: unknown) => e);
    await started();
    abort.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    let late: RunResult | undefined;
    finish((r) => (late = r));
    await vi.waitFor(() => expect(late).toBeDefined());
    await Promise.resolve();
    expect(free.mock.calls.map(([b]) => b.id)).toEqual(late?.outputs.map((b) => b.id));
  });

  it('a result made while an input was disposed is not trusted: DisposedError, and its outputs are freed', async () => {
    const { engine, finish, free, started } = await engineWithPendingGpuRun();
    const a = square(engine, 4);
    const b = square(engine, 4);
    const call = engine.matmul(a, b, onlyGpu).catch((e: unknown) => e);
    await started();
    b.dispose();
    let made: RunResult | undefined;
    finish((r) => (made = r));
    expect(await call).toBeInstanceOf(DisposedError);
    const freed = free.mock.calls.map(([x]) => x.id);
    expect(made?.outputs.length).toBe(1);
    for (const output of made?.outputs ?? []) expect(freed).toContain(output.id);
  });

  it("a failure after an input was disposed is the caller's DisposedError, not a backend failure", async () => {
    const { engine, fail, started } = await engineWithPendingGpuRun();
    const a = square(engine, 4);
    const b = square(engine, 4);
    const call = engine.matmul(a, b, { strategy: 'gpu-preferred' }).catch((e: unknown) => e);
    await started();
    b.dispose();
    fail(new BackendError('INJECTED', 'gpu', 'broken'));
    expect(await call).toBeInstanceOf(DisposedError);
    expect(engine.telemetry.opEvents().filter((e) => e.backend === 'cpu')).toEqual([]);
  });
});
