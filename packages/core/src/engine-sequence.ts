// Runs a recorded sequence (sequence.ts) on one backend: the inputs bound once, each step's kernel called straight
// on the backend with the buffers of earlier steps, intermediates freed after their last reader, the kept values
// adopted as tensors. No planning or validation per step (that is what a replay saves). Each step is still an op
// event in telemetry (reason 'replay'), a success or failure for the circuit breaker, and a measurement for the cost
// model, whose decision counter ticks as for a cached plan (so exploration keeps its schedule). A failure frees what
// the run made and throws: the caller runs the ops one by one again (the engine's fallbacks then apply).
import type { BackendSequence, BoundTensor, CapableBackend, DeviceBuffer } from './backend.ts';
import { backendSupports } from './capability.ts';
import type { Clock } from './clock.ts';
import type { BackendLifecycle, BackendState } from './engine-backends.ts';
import { checkedOutputs, type CallExecutor } from './engine-execution.ts';
import { BackendError, callerError, DisposedError, errorMessage, InvalidArgumentError } from './errors.ts';
import { mapOpTensors, type TensorSpec } from './ops.ts';
import { checkOwnTensor, disposedInput, type TensorOwner } from './ownership.ts';
import type { Residency } from './residency.ts';
import type { Tracker } from './scheduler/tracker.ts';
import type { CostModel } from './scheduler/cost-model.ts';
import { rooflineMs } from './scheduler/roofline.ts';
import type { RecordedSequence, RecordedStep } from './sequence.ts';
import { sameShape } from './shape.ts';
import type { Telemetry } from './telemetry/telemetry.ts';
import type { Tensor } from './tensor.ts';

/** Where a recorded sequence runs. */
export interface SequenceRunOptions {
  /** The backend every step runs on. */
  readonly backend: string;
}

/** What a run of a sequence gives back. */
export interface SequenceRun {
  /** The kept values as tensors on the backend, in `keep` order (the caller owns them). */
  readonly outputs: Tensor[];
  /** Each step's wall time, ms. */
  readonly stepMs: readonly number[];
  /** Bytes copied to bind the inputs. */
  readonly bytesMoved: number;
  /** Calls into the backend: 1 where it ran the whole sequence at once (BackendSequence), else one per step. */
  readonly backendCalls: number;
}

/** What a SequenceRunner works with (the engine's parts). */
export interface SequenceRunnerOptions {
  /** The backends' states. */
  readonly lifecycle: BackendLifecycle;
  /** Binds inputs (gathers, copies) and applies the deadline, as for single calls. */
  readonly executor: CallExecutor;
  /** Where tensors live. */
  readonly residency: Residency;
  /** Records each step. */
  readonly telemetry: Telemetry;
  /** The circuit breaker's records. */
  readonly tracker: Tracker;
  /** Learns each step's time; its decision counter ticks per step. */
  readonly costModel: CostModel;
  /** Called after the cost model learned (the profile is saved now and then). */
  readonly learned: () => void;
  /** Time source. */
  readonly clock: Clock;
  /** The engine's tensor owner. */
  readonly owner: TensorOwner;
}

/** Runs recorded sequences for an engine. */
export class SequenceRunner {
  private readonly o: SequenceRunnerOptions;
  /** Per sequence: the backends found able to run every step. */
  private readonly capable = new WeakMap<RecordedSequence, Set<string>>();
  /** Per sequence and backend: its prepared form, or null where the backend runs it step by step. */
  private readonly prepared = new WeakMap<RecordedSequence, Map<string, Prepared | null>>();

  constructor(options: SequenceRunnerOptions) {
    this.o = options;
  }

  /** Runs `sequence` on `inputs` (engine tensors matching its input specs) on one backend. */
  async run(sequence: RecordedSequence, inputs: readonly Tensor[], options: SequenceRunOptions): Promise<SequenceRun> {
    const { lifecycle, executor, residency, tracker, clock, owner } = this.o;
    if (sequence.owner !== owner)
      throw new InvalidArgumentError('runSequence.sequence', 'a RecordedSequence', 'was recorded by another engine');
    const state = lifecycle.states.get(options.backend);
    if (state === undefined)
      throw new InvalidArgumentError(
        'runSequence.options.backend',
        options.backend,
        `must be one of ${[...lifecycle.states.keys()].join(', ')}`,
      );
    this.checkInputs(sequence, inputs);
    const backend = state.backend;
    const health = backend.health();
    if (!state.available || health.state === 'unavailable' || health.state === 'unhealthy')
      throw new BackendError('UNAVAILABLE', backend.name, `cannot run a sequence: ${health.state}`);
    this.checkCapable(sequence, options.backend);

    const moved = { bytes: 0, ms: 0 };
    const buffers: (DeviceBuffer | undefined)[] = new Array(sequence.values.length);
    const made = new Set<number>(); // values this run allocated (step outputs), until freed or adopted
    const named = inputs.map((tensor, i) => ({ name: `inputs[${i}]`, tensor }));
    const failed: { step: RecordedStep | undefined; startMs: number } = { step: undefined, startMs: clock() };
    let stepMs: readonly number[];
    let backendCalls: number;
    try {
      for (const [i, tensor] of inputs.entries()) {
        // Weights and carried state are usually there already: no await for those.
        const resident = tensor.isContiguous ? tensor.storage.replicas.get(backend.name) : undefined;
        if (resident !== undefined) {
          buffers[i] = resident;
          continue;
        }
        const storage = await executor.contiguousStorage(tensor, moved);
        const { buffer, cost } = await residency.ensureOn(storage, tensor, backend);
        moved.bytes += cost.bytes;
        buffers[i] = buffer;
      }
      const prepared = this.preparedOn(sequence, state.backend);
      if (prepared !== undefined) {
        stepMs = await this.runPrepared(sequence, state, prepared, buffers, made, failed, moved.bytes);
        backendCalls = 1;
      } else {
        stepMs = await this.runSteps(sequence, state, buffers, made, failed, moved.bytes);
        backendCalls = sequence.steps.length;
      }
      // An input disposed while the sequence ran may have had its buffer reused: the result is not trusted.
      const gone = disposedInput('runSequence', named);
      if (gone !== undefined) throw new DisposedError(gone);
    } catch (error) {
      for (const id of made) {
        const buffer = buffers[id];
        if (buffer !== undefined) backend.free(buffer);
      }
      const gone = disposedInput('runSequence', named);
      if (gone !== undefined) throw new DisposedError(gone);
      const caller = callerError(error);
      if (caller !== undefined) throw caller;
      if (failed.step !== undefined) {
        const ms = clock() - failed.startMs;
        tracker.record(failed.step.op.op, backend.name, false, ms, false);
        this.record(failed.step, backend.name, failed.startMs, ms, undefined, false, errorMessage(error), 0);
      }
      executor.noteLostDevice(named, backend, error);
      throw error;
    }
    const outputs = sequence.keep.map((id) => {
      const buffer = buffers[id];
      const spec = sequence.values[id];
      if (buffer === undefined || spec === undefined)
        throw new BackendError('BAD_OUTPUT', backend.name, `kept value ${id} has no buffer`);
      return executor.tensorOn(backend.name, buffer, spec, undefined);
    });
    return { outputs, stepMs, bytesMoved: moved.bytes, backendCalls };
  }

  /** The backend's prepared form of `sequence` (made once), or undefined when it runs sequences step by step. */
  private preparedOn(sequence: RecordedSequence, backend: CapableBackend): Prepared | undefined {
    if (backend.prepareSequence === undefined) return undefined;
    let byBackend = this.prepared.get(sequence);
    if (byBackend === undefined) {
      byBackend = new Map();
      this.prepared.set(sequence, byBackend);
    }
    if (byBackend.has(backend.name)) return byBackend.get(backend.name) ?? undefined;
    let prepared: Prepared | null = null;
    try {
      prepared = { backend: backend.prepareSequence(sequence), runs: 0, shares: undefined };
    } catch (error) {
      // A sequence the backend cannot take in one call still runs, step by step; telemetry says why once.
      this.o.telemetry.notice('sequence-step-by-step', backend.name, errorMessage(error));
    }
    byBackend.set(backend.name, prepared);
    return prepared ?? undefined;
  }

  /**
   * Every step in one backend call. One run in TIME_STEPS_EVERY asks for each step's device time: those steps are
   * learned by the cost model. The others run as fast as the backend can (a HIP graph) and split their device time
   * by the shares the last timed run measured. Every step is recorded. Returns step times.
   */
  private async runPrepared(
    sequence: RecordedSequence,
    state: BackendState,
    prepared: Prepared,
    buffers: (DeviceBuffer | undefined)[],
    made: Set<number>,
    failed: { step: RecordedStep | undefined; startMs: number },
    bytesMoved: number,
  ): Promise<number[]> {
    const { executor, clock, costModel } = this.o;
    const backend = state.backend;
    const inputBuffers = sequence.inputs.map((_, i) => {
      const buffer = buffers[i];
      if (buffer === undefined) throw new BackendError('BIND_FAILED', backend.name, `input ${i} has no buffer`);
      return buffer;
    });
    const timed = prepared.runs % TIME_STEPS_EVERY === 0;
    prepared.runs++;
    const startMs = clock();
    // The device cannot say which step an asynchronous fault came from: a failure is charged to the first step,
    // and the backend's message names the step where it knows it.
    failed.step = sequence.steps[0];
    failed.startMs = startMs;
    const result = await executor.withDeadline(backend, 'sequence', prepared.backend.run(inputBuffers, timed));
    const wallMs = clock() - startMs;
    const keptSpecs = sequence.keep.map((id) => sequence.values[id] ?? { dtype: 'f32' as const, shape: [] });
    for (const [k, buffer] of checkedOutputs(backend, result, keptSpecs).entries()) {
      const id = sequence.keep[k] ?? -1;
      buffers[id] = buffer;
      made.add(id);
    }
    failed.step = undefined;
    const steps = sequence.steps.length;
    const measured = result.stepKernelMs?.length === steps ? result.stepKernelMs : undefined;
    if (measured !== undefined) {
      const total = measured.reduce((a, b) => a + b, 0);
      prepared.shares = measured.map((ms) => (total > 0 ? ms / total : 1 / steps));
    }
    const shares = prepared.shares;
    // Each step's time: its device time plus an equal share of what the call cost beyond the kernels.
    const kernelOf = (i: number): number => measured?.[i] ?? result.kernelMs * (shares?.[i] ?? 1 / steps);
    const overheadMs = Math.max(0, wallMs - result.kernelMs) / steps;
    const stepMs: number[] = [];
    let at = startMs;
    // Untimed runs keep the counters of every step but no event each, and give the circuit breaker one success per
    // op kind (at its mean step time): a whole model is hundreds of steps, and this is the bookkeeping per token.
    const byOp = timed ? undefined : new Map<string, { ms: number; steps: number }>();
    for (const [i, step] of sequence.steps.entries()) {
      const kernelMs = kernelOf(i);
      const ms = kernelMs + overheadMs;
      if (byOp === undefined) this.succeeded(step, state, at, ms, kernelMs, i === 0 ? bytesMoved : 0);
      else {
        costModel.tick(step.opKey);
        this.record(step, backend.name, at, ms, kernelMs, true, undefined, i === 0 ? bytesMoved : 0, false);
        const sum = byOp.get(step.op.op) ?? { ms: 0, steps: 0 };
        byOp.set(step.op.op, { ms: sum.ms + ms, steps: sum.steps + 1 });
      }
      stepMs.push(ms);
      at += ms;
    }
    for (const [op, sum] of byOp ?? []) this.o.tracker.record(op, backend.name, true, sum.ms / sum.steps, false);
    if (timed) this.o.learned();
    return stepMs;
  }

  /** Each step's kernel called on its own, intermediates freed after their last reader. Returns step times. */
  private async runSteps(
    sequence: RecordedSequence,
    state: BackendState,
    buffers: (DeviceBuffer | undefined)[],
    made: Set<number>,
    failed: { step: RecordedStep | undefined; startMs: number },
    bytesMoved: number,
  ): Promise<number[]> {
    const { executor, clock } = this.o;
    const backend = state.backend;
    const bind = (t: { value: number; shape: readonly number[] }): BoundTensor => {
      const buffer = buffers[t.value];
      const spec = sequence.values[t.value];
      if (buffer === undefined || spec === undefined)
        throw new BackendError('BIND_FAILED', backend.name, `value ${t.value} was freed before a reader ran`);
      return { dtype: spec.dtype, shape: t.shape, buffer };
    };
    const stepMs: number[] = [];
    for (const [i, step] of sequence.steps.entries()) {
      failed.step = step;
      failed.startMs = clock();
      const result = await executor.withDeadline(
        backend,
        step.op.op,
        backend.run(mapOpTensors(step.op, bind), step.outputs),
      );
      const ms = clock() - failed.startMs;
      for (const [k, buffer] of checkedOutputs(backend, result, step.outputs).entries()) {
        buffers[step.firstOutput + k] = buffer;
        made.add(step.firstOutput + k);
      }
      stepMs.push(ms);
      // The inputs' copies are charged to the first step, as a node-by-node run charges them to their readers.
      this.succeeded(step, state, failed.startMs, ms, result.kernelMs, i === 0 ? bytesMoved : 0);
      this.o.learned();
      for (const id of step.release) {
        const buffer = buffers[id];
        if (buffer === undefined || !made.has(id) || sequence.keep.includes(id)) continue;
        backend.free(buffer);
        buffers[id] = undefined;
        made.delete(id);
      }
    }
    failed.step = undefined;
    return stepMs;
  }

  /** A step that ran: a success for the circuit breaker, a sample for the cost model, an op event. */
  private succeeded(
    step: RecordedStep,
    state: BackendState,
    startMs: number,
    ms: number,
    kernelMs: number | undefined,
    bytesMoved: number,
  ): void {
    const { tracker, costModel } = this.o;
    const backend = state.backend;
    tracker.record(step.op.op, backend.name, true, ms, false);
    const priorMs = backend.estimateCost?.(step.spec, step.work) ?? rooflineMs(step.work, state.profile);
    costModel.tick(step.opKey);
    costModel.observe(step.opKey, backend.name, step.work.flops, priorMs, ms, false, startMs + ms);
    this.record(step, backend.name, startMs, ms, kernelMs, true, undefined, bytesMoved);
  }

  /** Throws unless every input is a live tensor of this engine with the recorded dtype and shape. */
  private checkInputs(sequence: RecordedSequence, inputs: readonly Tensor[]): void {
    if (inputs.length !== sequence.inputs.length)
      throw new InvalidArgumentError(
        'runSequence.inputs',
        inputs.length,
        `must hold ${sequence.inputs.length} tensors`,
      );
    for (const [i, tensor] of inputs.entries()) {
      checkOwnTensor(`runSequence.inputs[${i}]`, tensor, this.o.owner);
      const spec = sequence.inputs[i];
      if (spec !== undefined && (tensor.dtype !== spec.dtype || !sameShape(tensor.shape, spec.shape)))
        throw new InvalidArgumentError(
          `runSequence.inputs[${i}]`,
          `${tensor.dtype} [${tensor.shape.join(', ')}]`,
          `must be ${spec.dtype} [${spec.shape.join(', ')}] as recorded`,
        );
    }
  }

  /** Throws UNSUPPORTED unless the backend runs every step (checked once per sequence and backend). */
  private checkCapable(sequence: RecordedSequence, name: string): void {
    const known = this.capable.get(sequence);
    if (known?.has(name) === true) return;
    const backend = this.o.lifecycle.states.get(name)?.backend;
    if (backend === undefined) return;
    for (const step of sequence.steps) {
      const spec = mapOpTensors(
        step.op,
        (t): TensorSpec => ({
          dtype: sequence.values[t.value]?.dtype ?? 'f32',
          shape: t.shape,
        }),
      );
      const verdict = backendSupports(backend, spec, step.outputs);
      if (!verdict.ok) throw new BackendError('UNSUPPORTED', name, `${step.label}: ${verdict.reason}`);
    }
    const set = known ?? new Set<string>();
    set.add(name);
    this.capable.set(sequence, set);
  }

  /** One step's op event, or only its count (`event` false, or no event kept). */
  private record(
    step: RecordedStep,
    backend: string,
    startMs: number,
    durationMs: number,
    kernelMs: number | undefined,
    ok: boolean,
    error: string | undefined,
    bytesMoved: number,
    event = true,
  ): void {
    const { telemetry, executor } = this.o;
    const reason = step.reason;
    if (!event || !telemetry.keepsEvents) {
      telemetry.count({ op: step.op.op, backend, attempt: 1, ok, durationMs, bytesMoved, reason, costsMs: NO_COSTS });
      return;
    }
    telemetry.recordOp({
      seq: telemetry.nextSeq(),
      callId: executor.newCallId(),
      attempt: 1,
      op: step.op.op,
      label: step.label,
      dtype: step.dtype,
      shapes: step.shapes,
      backend,
      reason,
      costsMs: NO_COSTS,
      ok,
      error,
      startMs,
      durationMs,
      kernelMs,
      estimatedMs: 0,
      flops: step.work.flops,
      bytesMoved,
    });
  }
}

/**
 * One run of a prepared sequence in this many asks for each step's device time (slower: the backend launches the
 * steps one by one with events) and teaches the cost model; the others run whole (issue 28, docs/decisions.md).
 */
export const TIME_STEPS_EVERY = 16;

/** A backend's prepared form of a sequence, and what its timed runs measured. */
interface Prepared {
  /** What runs it. */
  readonly backend: BackendSequence;
  /** Runs so far. */
  runs: number;
  /** Each step's share of the device time in the last timed run (undefined before one). */
  shares: number[] | undefined;
}

/** A replayed step compares no estimates. */
const NO_COSTS: Readonly<Record<string, number>> = Object.freeze({});
