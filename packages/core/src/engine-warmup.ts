// Serving while a GPU warms up (issue 31). When `auto` would give an op to a GPU that has never run it and compiles on
// a first run (WebGPU's pipelines; CapableBackend.compilesOnFirstRun), the cheapest backend that needs no such run
// (a CPU, or a GPU whose kernels are built ahead) serves the call (reason `warming`) and the GPU runs the same op once in the background, on the same inputs, its result discarded. That
// first run is the cost model's warm-up (not learned from); the next calls measure the GPU and move to it when it is
// faster. A GPU whose kernels are built ahead (ROCm) is not stood in for: its first run costs about what the next
// ones do, and the CPU was up to 47x slower on the ops it would stand in for (docs/decisions.md, issue 31). Failures
// count against the GPU as any failed call does and show as 'warm-up-failed' notices; an input the caller disposed
// meanwhile just ends the warm-up. The ops a GPU warmed up on are kept as examples (input specs and parameters, no
// data) that a profile saves, so the next engine warms them up at start on zeros (EngineProfile.warmUps).
import type { BackendLifecycle } from './engine-backends.ts';
import type { CallExecutor, PlannedCall } from './engine-execution.ts';
import { freeOutputs } from './engine-execution.ts';
import { callerError, errorMessage } from './errors.ts';
import { opWork } from './op-info.ts';
import { mapOpTensors, opInputs, type Op, type TensorSpec } from './ops.ts';
import { disposedInput } from './ownership.ts';
import type { Clock } from './clock.ts';
import type { CostModel } from './scheduler/cost-model.ts';
import type { DecisionCache } from './scheduler/decision-cache.ts';
import { opKeyOf } from './scheduler/op-key.ts';
import { rooflineMs } from './scheduler/roofline.ts';
import type { Tracker } from './scheduler/tracker.ts';
import type { WarmthTracker } from './scheduler/warmth.ts';
import type { Telemetry } from './telemetry/telemetry.ts';
import { byteLengthOf } from './dtype.ts';
import { numel } from './shape.ts';

/** An op a GPU backend warmed up on: what a profile keeps so the next engine can warm it up at start. */
export interface WarmUpExample {
  /** The GPU backend. */
  readonly backend: string;
  /** The op over input specs (dtype and shape) with its parameters. */
  readonly op: Op<TensorSpec>;
}

/** Examples kept per engine, at most (one per op, dtype and backend). */
export const MAX_WARM_UP_EXAMPLES = 64;

/** Inputs an example may have, bytes in all: warming one up at start allocates that much of zeros. */
export const MAX_WARM_UP_INPUT_BYTES = 64 * 1024 * 1024;

/** spreadActivation's CSR must describe a graph, which zeros do not: its warm-up comes from a real call only. */
const NO_ZERO_INPUTS: ReadonlySet<string> = new Set(['spreadActivation']);

/** What background warm-ups work with. */
export interface WarmUpContext {
  /** Binds inputs, applies the deadline, notices lost devices. */
  readonly executor: CallExecutor;
  /** The backends' states. */
  readonly lifecycle: BackendLifecycle;
  /** Counts the run as the backend's warm-up for the op. */
  readonly costModel: CostModel;
  /** The circuit breaker. */
  readonly tracker: Tracker;
  /** Emptied when a warm-up fails (plans that count on that GPU are stale). */
  readonly decisions: DecisionCache;
  /** Where warm-ups and their failures are noticed. */
  readonly telemetry: Telemetry;
  /** Which calls follow a backend's idle time. */
  readonly warmth: WarmthTracker;
  /** Time source. */
  readonly clock: Clock;
}

/** The warm-ups running in the background, one per (op, dtype, backend), and the examples of finished ones. */
export class BackgroundWarmUps {
  private readonly ctx: WarmUpContext;
  private readonly running = new Map<string, Promise<void>>();
  private readonly examples = new Map<string, WarmUpExample>();

  constructor(ctx: WarmUpContext) {
    this.ctx = ctx;
  }

  /** Starts running `call`'s op once on `backend` in the background, unless that op is warming up there already. */
  start(call: PlannedCall, backend: string): void {
    const key = `${call.opKey}@${backend}`;
    if (this.running.has(key)) return;
    const done = this.warmUp(call, backend).finally(() => this.running.delete(key));
    this.running.set(key, done);
  }

  /**
   * Runs each example (from a profile) once on its backend, in the background, on zeros, through `run` (so it is an
   * ordinary call in the telemetry, labelled 'warm-up (profile)'): the pipelines the last engine needed are compiled
   * before the first call needs them. Skips examples whose backend is not here, does not compile on a first run,
   * is a software GPU (SwiftShader: slower than the CPU it runs on, and compiling its pipelines takes that CPU from the
   * calls: a reload in Chromium started 1.1-1.5x later with them than without) or has run the op already.
   */
  startExamples(examples: readonly WarmUpExample[], run: (example: WarmUpExample) => Promise<void>): void {
    for (const example of examples) {
      const opKey = opKeyOf(example.op, opInputs(example.op));
      const key = `${opKey}@${example.backend}`;
      const state = this.ctx.lifecycle.states.get(example.backend);
      if (state?.available !== true || state.backend.compilesOnFirstRun !== true || state.software) continue;
      if (this.running.has(key)) continue;
      if (this.ctx.costModel.warmedUp(opKey, example.backend)) continue;
      const done = run(example)
        .catch((error: unknown) =>
          this.ctx.telemetry.notice(
            'warm-up-failed',
            example.backend,
            `${opKey} (profile): ${errorMessage(error)}`,
            example.op.op,
          ),
        )
        .finally(() => this.running.delete(key));
      this.running.set(key, done);
    }
  }

  /** Warm-ups running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Resolves once every warm-up running now has ended (dispose waits for them before freeing the backends). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  /** Keeps `op` as the example of its (op, dtype) on GPU `backend`, if it can be warmed up on zeros. */
  noteExample(opKey: string, backend: string, op: Op<TensorSpec>): void {
    const key = `${opKey}@${backend}`;
    if (this.examples.has(key) || this.examples.size >= MAX_WARM_UP_EXAMPLES || NO_ZERO_INPUTS.has(op.op)) return;
    let bytes = 0;
    for (const { tensor } of opInputs(op)) bytes += byteLengthOf(tensor.dtype, numel(tensor.shape));
    if (bytes > MAX_WARM_UP_INPUT_BYTES) return;
    this.examples.set(key, { backend, op: mapOpTensors(op, (t) => ({ dtype: t.dtype, shape: [...t.shape] })) });
  }

  /**
   * The examples a profile saves: those whose GPU is the fastest backend this engine measured for that op at that
   * size (on the H100 host, warming up every op WebGPU had run made the next engine's first calls slower, as WebGPU
   * loses most of them to ROCm).
   */
  exampleList(): WarmUpExample[] {
    return [...this.examples.values()].filter((example) => this.fastestOn(example));
  }

  private fastestOn(example: WarmUpExample): boolean {
    const { costModel, lifecycle } = this.ctx;
    const opKey = opKeyOf(example.op, opInputs(example.op));
    const { flops } = opWork(example.op);
    let best: string | undefined;
    let bestMs = Infinity;
    for (const name of costModel.backendsMeasured(opKey)) {
      const state = lifecycle.states.get(name);
      const ms = state === undefined ? undefined : costModel.learnedMs(opKey, name, flops, state.profile.launchMs);
      if (ms !== undefined && ms < bestMs) [best, bestMs] = [name, ms];
    }
    return best === example.backend;
  }

  private async warmUp(call: PlannedCall, name: string): Promise<void> {
    const { executor, lifecycle, costModel, tracker, decisions, telemetry, warmth, clock } = this.ctx;
    const state = lifecycle.states.get(name);
    if (state === undefined) return;
    const { op, spec, outputs, work, opKey } = call;
    const cold = warmth.begin(name, clock());
    let runMs = 0;
    try {
      const bound = await executor.bind(op, state.backend, { bytes: 0, ms: 0 });
      const t0 = clock();
      const result = await executor.withDeadline(state.backend, op.op, state.backend.run(bound, outputs));
      runMs = clock() - t0;
      freeOutputs(state.backend, result);
      const priorMs = state.backend.estimateCost?.(spec, work) ?? rooflineMs(work, state.profile);
      costModel.observe(opKey, name, work.flops, priorMs, runMs, cold, clock());
      tracker.record(op.op, name, true, runMs, false);
      if (state.backend.compilesOnFirstRun === true) this.noteExample(opKey, name, spec);
      telemetry.notice(
        'backend-warmed',
        name,
        `${opKey}: first run in the background took ${runMs.toFixed(1)} ms; another backend served the calls meanwhile`,
        op.op,
      );
    } catch (error) {
      // The caller's inputs went away (disposed, or a caller error): nothing was learned, the next call starts again.
      if (callerError(error) !== undefined || disposedInput(op.op, call.inputs) !== undefined) return;
      tracker.record(op.op, name, false, runMs, false);
      decisions.clear();
      telemetry.notice('warm-up-failed', name, `${opKey}: ${errorMessage(error)}`, op.op);
      executor.noteLostDevice(call.inputs, state.backend, error);
    } finally {
      warmth.end(name, clock());
    }
  }
}
