// The child-process WebGPU backend's process killed (SIGKILL, as a native crash in dawn.node would end it) while it
// runs an op, again and again during a run of mixed conformance ops: every call answers with the reference's result
// (from WASM while the GPU process is down), each kill is in the telemetry with its cause (a failed attempt named by
// the fallback that followed, or a result recomputed after the process took it), the engine brings a new GPU process up each time, and no process is left behind.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine, type BoundTensor, type Op, type RunResult, type TensorSpec } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { ProcessWebGpuBackend } from '@tandem/webgpu/node';
import { needBackends } from '../support/backends.ts';
import { childProcessIds } from '../../packages/webgpu/src/process/process-test-support.ts';
import { auditFallbacks } from './fallback-audit.ts';
import { casesWithReference, checkCase, type ReferenceCase } from './mixed-faults.ts';

/** WebGPU (on SwiftShader) and wasm, which these tests build themselves. */
const ready = needBackends('webgpu', 'wasm');
let unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => void unhandled.push(e);

beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** The GPU-process backend, whose process is SIGKILLed once the chosen run requests have been sent to it. */
class KilledMidRun extends ProcessWebGpuBackend {
  /** Run calls (1-based) during which the process is killed. */
  readonly killDuring = new Set<number>();
  /** Process ids killed, in order. */
  readonly killed: number[] = [];
  private runs = 0;

  /** Run calls so far. */
  runsSoFar(): number {
    return this.runs;
  }

  /** Sends the run; on a chosen call, kills the process while the request is pending there. */
  override async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    this.runs++;
    const result = super.run(op, outputs);
    if (this.killDuring.has(this.runs)) {
      // The request is posted a few microtasks in (after the connection check); no reply can arrive before the
      // next I/O turn, so the kill lands while the run is pending in the child.
      for (let i = 0; i < 50 && this.pendingRequests('run') === 0; i++) await Promise.resolve();
      const pid = this.processId();
      if (pid !== undefined && this.pendingRequests('run') > 0) {
        this.killed.push(pid);
        this.killProcess('SIGKILL');
      }
    }
    return result;
  }
}

/** Times the engine has announced the GPU backend back after a failure. */
function recoveries(engine: Engine): number {
  return engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-recovered' && n.backend === 'webgpu').length;
}

/**
 * Resolves once the engine has brought the GPU process back after every kill so far (its health alone turns
 * healthy a little before the engine's re-init has finished). Meanwhile it keeps calling the engine every 20 ms, as
 * a user would: calls are what make the engine re-initialise a lost backend (and retry a re-init that failed, as
 * one can on a loaded machine). Results of those calls are checked too. Rejects after `timeoutMs`.
 */
async function untilGpuBack(
  engine: Engine,
  gpu: KilledMidRun,
  item: ReferenceCase,
  wrong: string[],
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (gpu.health().state !== 'healthy' || recoveries(engine) < gpu.killed.length) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(gpu.health())}`);
    const problem = await checkCase(engine, item, 'gpu-preferred');
    if (problem !== undefined) wrong.push(problem);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!ready)('the GPU process killed mid-op during a mixed run', () => {
  it('4 kills in 120 mixed ops: every result right, every kill in telemetry with its cause, a new process each time', async () => {
    const gpu = new KilledMidRun({ swiftShader: true, stderr: 'capture' });
    const engine = await Engine.create({
      backends: [gpu, new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })],
      strategy: 'gpu-preferred',
      recoveryIntervalMs: 0,
      tracker: { successRateThreshold: 0 },
    });
    const cases = casesWithReference();
    const ops = 120;
    const killEvery = 30;
    const wrong: string[] = [];
    const pids = new Set<number>();
    try {
      for (let i = 0; i < ops; i++) {
        const item = cases[(i * 7) % cases.length];
        if (item === undefined) throw new Error(`draw ${i} fell outside the case list`);
        if (i % killEvery === killEvery / 2) {
          // Kill during this op: wait for the GPU process to be back, so the op goes there.
          await untilGpuBack(engine, gpu, item, wrong, 'a new GPU process');
          gpu.killDuring.add(gpu.runsSoFar() + 1);
        }
        const pid = gpu.processId();
        if (pid !== undefined) pids.add(pid);
        const problem = await checkCase(engine, item, 'gpu-preferred');
        if (problem !== undefined) wrong.push(problem);
      }
      // After the last kill, a new GPU process serves again.
      const last = cases[0];
      if (last === undefined) throw new Error('no conformance cases');
      await untilGpuBack(engine, gpu, last, wrong, 'a new GPU process after the last kill');
      expect(await checkCase(engine, last, 'gpu-preferred')).toBeUndefined();
      expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ backend: 'webgpu', ok: true });
      expect(wrong).toEqual([]);
      expect(gpu.killed.length).toBe(ops / killEvery);
      for (const pid of gpu.killed) pids.add(pid);
      expect(pids.size).toBe(gpu.killed.length + 1); // a new process after each kill

      // Each kill is in the telemetry with its cause: as the failed run it interrupted, or, where the child's reply
      // won the race with the kill (a tiny op), as the recomputation of the result the process took with it.
      const events = engine.telemetry.opEvents();
      const causes = [
        ...events.filter((e) => !e.ok).map((e) => `${e.backend}: ${e.error ?? ''}`),
        ...engine.telemetry
          .noticeEvents()
          .filter((n) => n.kind === 'tensor-recomputed')
          .map((n) => `${n.backend}: ${n.detail}`),
      ];
      const kills = causes.filter((c) => /was killed by SIGKILL/.test(c));
      expect(kills).toHaveLength(gpu.killed.length);
      for (const pid of gpu.killed)
        expect(
          kills.filter(
            (c) => c.startsWith(`webgpu: `) && c.includes(`GPU process ${pid} was killed by SIGKILL (during `),
          ),
        ).toHaveLength(1);
      const audit = auditFallbacks(events);
      expect(audit.unexplained).toEqual([]);
      expect(audit.explained).toBe(audit.failed);
      expect(recoveries(engine)).toBe(gpu.killed.length);
    } finally {
      await engine.dispose();
    }
    expect(childProcessIds()).toEqual([]);
  }, 120_000);
});
