// What the engine does with what a backend returns (engine-execution.ts): outputs of the wrong count, size or owner
// are a BAD_OUTPUT failure of that backend, a result that comes after the deadline is freed, and a failed attempt is
// counted when the telemetry keeps counters only.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AllBackendsFailedError, DeadlineExceededError, type RunResult } from '@tandem/core';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const onlyGpu = { strategy: { only: 'gpu' } } as const;

/** The error of a matmul run on the GPU only, whose run() returns what `alter` makes of its real result. */
async function failureOf(alter: (result: RunResult) => RunResult): Promise<unknown> {
  const { engine, gpu } = await simulatedEngine();
  const run = gpu.run.bind(gpu);
  vi.spyOn(gpu, 'run').mockImplementation(async (op, outputs) => alter(await run(op, outputs)));
  const a = square(engine, 4);
  return engine.matmul(a, a, onlyGpu).catch((e: unknown) => e);
}

describe("a backend's outputs are checked before they become tensors", () => {
  it('an output owned by another backend is refused', async () => {
    const error = await failureOf((r) => ({ ...r, outputs: r.outputs.map((b) => ({ ...b, backend: 'cpu' })) }));
    expect(error).toBeInstanceOf(AllBackendsFailedError);
    expect((error as Error).message).toContain('output 0 has the wrong size or owner');
  });

  it('an output of the wrong size is refused', async () => {
    const error = await failureOf((r) => ({ ...r, outputs: r.outputs.map((b) => ({ ...b, byteLength: 4 })) }));
    expect((error as Error).message).toContain('output 0 has the wrong size or owner');
  });

  it('a wrong number of outputs is refused', async () => {
    const error = await failureOf((r) => ({ ...r, outputs: [] }));
    expect((error as Error).message).toContain('returned 0 outputs, expected 1');
  });
});

describe('a result that comes after the deadline', () => {
  it('is freed on its backend when it finally comes', async () => {
    const { engine, gpu } = await simulatedEngine({ opDeadlineMs: 1 });
    let finish: (result: RunResult) => void = () => undefined;
    vi.spyOn(gpu, 'run').mockImplementationOnce(() => new Promise<RunResult>((resolve) => (finish = resolve)));
    const free = vi.spyOn(gpu, 'free');
    const a = square(engine, 4);
    const error = await engine.matmul(a, a, onlyGpu).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllBackendsFailedError);
    expect((error as Error).message).toContain(new DeadlineExceededError('gpu', 'matmul', 1).message);
    const late = { backend: 'gpu', id: 999, byteLength: 64 };
    finish({ outputs: [late], kernelMs: 1 });
    await Promise.resolve();
    expect(free).toHaveBeenCalledWith(late);
  });
});

describe('with telemetry counters only', () => {
  it('a failed attempt is counted, and takes no sequence number: the notices after it are numbered on without a gap', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const inner = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock });
    const gpu = new FaultInjectingBackend(inner, faultSchedule({ 1: 'device-lost' }));
    const { engine } = await simulatedEngine({ telemetry: false, backends: [cpu, gpu], recoveryIntervalMs: 1e9 });
    const a = square(engine, 4);
    await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(engine.telemetry.opEvents()).toEqual([]);
    expect(engine.telemetry.summary()).toMatchObject({ totalOps: 1, totalFailures: 1, fallbacks: 1 });
    const notices = engine.telemetry.noticeEvents();
    expect(notices.map((n) => n.kind)).toEqual(['backend-ready', 'backend-ready', 'backend-unhealthy']);
    expect(notices.map((n) => n.seq)).toEqual([1, 2, 3]);
  });
});
