// The engine's execution of a planned call: the chosen backend, then each fallback in turn, until one succeeds.
// Each attempt binds the inputs (copying them where needed), runs the op within the deadline and the caller's abort
// signal, adopts the outputs as tensors, and teaches the cost model, the circuit breaker and the telemetry.
import type { BoundTensor, CapableBackend, DeviceBuffer, RunResult } from './backend.ts';
import { raceAbort, throwIfAborted, type AbortSignalLike } from './call-options.ts';
import type { Clock } from './clock.ts';
import { CsrChecks } from './csr-check.ts';
import { byteLengthOf } from './dtype.ts';
import type { BackendLifecycle } from './engine-backends.ts';
import type { CallInputs } from './engine-planning.ts';
import {
  AllBackendsFailedError,
  BackendError,
  callerError,
  DeadlineExceededError,
  DeviceLostError,
  DisposedError,
  errorMessage,
  type BackendFailure,
} from './errors.ts';
import { OpLineage, type Rerun } from './lineage.ts';
import type { OpWork } from './op-definition.ts';
import { mapOpTensors, opInputs, type Op, type SpreadActivationOp, type TensorSpec } from './ops.ts';
import { disposedInput, type TensorOwner } from './ownership.ts';
import type { Residency } from './residency.ts';
import type { CostModel } from './scheduler/cost-model.ts';
import type { CachedDecision, DecisionCache } from './scheduler/decision-cache.ts';
import { rooflineMs } from './scheduler/roofline.ts';
import type { SchedulePlan, SelectionReason } from './scheduler/selection.ts';
import type { Tracker } from './scheduler/tracker.ts';
import type { WarmthTracker } from './scheduler/warmth.ts';
import { numel } from './shape.ts';
import type { Telemetry } from './telemetry/telemetry.ts';
import { contiguousBytes, Storage, Tensor, type TensorHost } from './tensor.ts';
import { cancelTimer, startTimer } from './timers.ts';

/** A call whose plan is made: what execute() needs. */
export interface PlannedCall {
  /** The op with the caller's tensors. */
  readonly op: Op<Tensor>;
  /** The same op seen as specs (dtype and shape). */
  readonly spec: Op<TensorSpec>;
  /** The outputs' specs. */
  readonly outputs: readonly TensorSpec[];
  /** FLOPs and bytes of the call. */
  readonly work: OpWork;
  /** The chosen backend, fallbacks and skipped ones. */
  readonly plan: SchedulePlan;
  /** The caller's label for telemetry. */
  readonly label: string | undefined;
  /** The caller's abort signal. */
  readonly signal: AbortSignalLike | undefined;
  /** The op's inputs with their names (checked live and owned by this engine). */
  readonly inputs: CallInputs;
  /** The reused plan, when the decision cache served this call. */
  readonly cached: CachedDecision | undefined;
  /** The cost model's key of the call. */
  readonly opKey: string;
}

/** What a CallExecutor works with. */
export interface CallExecutorOptions {
  /** The backends' states. */
  readonly lifecycle: BackendLifecycle;
  /** The circuit breaker. */
  readonly tracker: Tracker;
  /** Learns each call's time. */
  readonly costModel: CostModel;
  /** Plans reused by identical calls (a failure empties it, a measurement may end a plan's reuse). */
  readonly decisions: DecisionCache;
  /** Where every attempt and notice is recorded. */
  readonly telemetry: Telemetry;
  /** Where tensors live; binds inputs and forgets replicas on lost devices. */
  readonly residency: Residency;
  /** Which calls follow a backend's idle time (not learned from). */
  readonly warmth: WarmthTracker;
  /** Time source. */
  readonly clock: Clock;
  /** An attempt running longer than this is abandoned, ms. */
  readonly deadlineMs: number;
  /** Marks the storages of the engine's tensors. */
  readonly owner: TensorOwner;
  /** The engine's side of its tensors (reads and releases). */
  readonly host: TensorHost;
  /** Runs an op again through the engine: how a result lost with its device before it was read is recomputed. */
  readonly rerun: Rerun;
  /** Called after each measured call (the engine's profile saves now and then as it learns). */
  readonly profile: () => void;
  /**
   * Whether a background warm-up is running (engine-warmup.ts): a call that overlaps one shares the host with its
   * uploads and pipeline compilation, so its time is not learned from (as a cold call's is not).
   */
  readonly warmingUp: () => boolean;
  /** Called when a backend has run an op for the first time (its warm-up; a GPU's is kept as a profile's example). */
  readonly firstRun: (opKey: string, backend: CapableBackend, spec: Op<TensorSpec>) => void;
}

/** Runs planned calls with fallback. */
export class CallExecutor {
  private readonly lifecycle: BackendLifecycle;
  private readonly tracker: Tracker;
  private readonly costModel: CostModel;
  private readonly decisions: DecisionCache;
  private readonly telemetry: Telemetry;
  private readonly residency: Residency;
  private readonly warmth: WarmthTracker;
  private readonly clock: Clock;
  private readonly deadlineMs: number;
  private readonly owner: TensorOwner;
  private readonly host: TensorHost;
  private readonly rerun: Rerun;
  private readonly learned: () => void;
  private readonly warmingUp: () => boolean;
  private readonly firstRun: (opKey: string, backend: CapableBackend, spec: Op<TensorSpec>) => void;
  /** Records that a lost result is being recomputed (made once: lineage is recorded on every call). */
  private readonly recomputeNotice: (backend: string, op: string, detail: string) => void;
  /** spreadActivation graphs (rowPtr, colIdx storages) already checked. */
  private readonly csr = new CsrChecks();
  private nextCallId = 0;

  constructor(options: CallExecutorOptions) {
    this.lifecycle = options.lifecycle;
    this.tracker = options.tracker;
    this.costModel = options.costModel;
    this.decisions = options.decisions;
    this.telemetry = options.telemetry;
    this.residency = options.residency;
    this.warmth = options.warmth;
    this.clock = options.clock;
    this.deadlineMs = options.deadlineMs;
    this.owner = options.owner;
    this.host = options.host;
    this.rerun = options.rerun;
    this.learned = options.profile;
    this.firstRun = options.firstRun;
    this.warmingUp = options.warmingUp;
    this.recomputeNotice = (backend, op, detail) => this.telemetry.notice('tensor-recomputed', backend, detail, op);
  }

  /**
   * spreadActivation's CSR arrays, checked once per (rowPtr, colIdx) pair before any backend is asked (the bytes are
   * brought to the host if they only live on a device).
   */
  async checkGraph(op: SpreadActivationOp<Tensor>, inputs: CallInputs): Promise<void> {
    try {
      const moved = { bytes: 0, ms: 0 };
      const rowPtr = await this.contiguousStorage(op.rowPtr, moved);
      const colIdx = await this.contiguousStorage(op.colIdx, moved);
      if (this.csr.isValid(rowPtr, colIdx)) return;
      this.csr.check(rowPtr, await this.residency.hostBytes(rowPtr), colIdx, await this.residency.hostBytes(colIdx));
    } catch (error) {
      const gone = disposedInput(op.op, inputs);
      throw gone === undefined ? error : new DisposedError(gone);
    }
  }

  /** Runs a planned call: the chosen backend, then each fallback in turn, until one succeeds. */
  async execute(call: PlannedCall): Promise<Tensor[]> {
    const { op, spec, outputs, work, plan, label, signal, inputs, cached, opKey } = call;
    const callId = ++this.nextCallId;
    const attempts = 1 + plan.fallbacks.length;
    // Made on the first failure only: most calls succeed at once.
    let failures: BackendFailure[] | undefined;
    const dtype = inputs[0]?.tensor.dtype ?? 'f32';
    // Events (and their shapes text) are built only when the telemetry keeps them; else the attempt is only counted.
    const shapes = this.telemetry.keepsEvents ? inputs.map((i) => i.tensor.shape.join('x')).join(', ') : '';
    let reason: SelectionReason = plan.selection.reason;
    let estimatedMs = plan.selection.estimatedMs;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const name = attempt === 1 ? plan.selection.backend : (plan.fallbacks[attempt - 2] ?? '');
      const state = this.lifecycle.states.get(name);
      if (state === undefined) continue;
      // Fallbacks go through the breaker too; an open circuit is still tried as a last resort.
      const admission = this.tracker.admit(op.op, name);
      const probe = admission.admitted && admission.probe;
      const startMs = this.clock();
      const moved = { bytes: 0, ms: 0 };
      let runMs = 0;
      const overlapped = this.warmingUp();
      let cold = this.warmth.begin(name, startMs);
      try {
        throwIfAborted(signal, op.op);
        const bound = this.boundIfResident(op, inputs, state.backend) ?? (await this.bind(op, state.backend, moved));
        throwIfAborted(signal, op.op);
        const t0 = this.clock();
        const run = this.withDeadline(state.backend, op.op, state.backend.run(bound, outputs));
        const result = await raceAbort(run, signal, op.op, (late) => freeOutputs(state.backend, late));
        runMs = this.clock() - t0;
        // An input disposed while the op ran may have had its buffer reused: the result is not trusted.
        const gone = disposedInput(op.op, inputs);
        if (gone !== undefined) {
          freeOutputs(state.backend, result);
          throw new DisposedError(gone);
        }
        const tensors = this.adopt(state.backend, result, outputs, opKey);
        this.recordLineage(op, label, tensors);
        // What the call cost beyond its copies (binding, the run, adopting the outputs): the copies are priced on
        // their own from where the inputs live, and the rest is what another call of this op will pay here. The run
        // alone left out rocm's per-call work around small kernels, enough to turn near-ties with the CPU (docs/decisions.md, issue 29).
        // One reading for the rest of the attempt: the learning and telemetry below are not the op's time.
        const doneMs = this.clock();
        const opMs = Math.max(runMs, doneMs - startMs - moved.ms);
        const priorMs = state.backend.estimateCost?.(spec, work) ?? rooflineMs(work, state.profile);
        if (!this.costModel.warmedUp(opKey, name)) this.firstRun(opKey, state.backend, spec);
        cold ||= overlapped || this.warmingUp();
        const offFromMs = this.costModel.observe(opKey, name, work.flops, priorMs, opMs, cold, doneMs);
        if (offFromMs !== undefined) {
          const { surprisesForRegimeChange, surpriseFactor, regimeMinSpanMs } = this.costModel.config;
          this.telemetry.notice(
            'cost-model-reset',
            name,
            `${opKey}: ${surprisesForRegimeChange} or more measurements in a row of this size (${work.flops} flops) over ${regimeMinSpanMs} ms or more, ${surpriseFactor}x or more off the estimate (last ${opMs.toFixed(3)} ms, estimate ${offFromMs.toFixed(3)} ms); this size is re-learned from them`,
            op.op,
          );
        }
        // A cold call's time says how long the backend took to wake up, not whether a cached plan still holds.
        if (!cold && cached !== undefined && attempt === 1) this.decisions.checkDrift(cached, opMs);
        else if (!cold) this.decisions.noteMeasured(work, opKey, name, opMs);
        this.tracker.record(op.op, name, true, runMs, probe);
        this.learned();
        const durationMs = doneMs - startMs;
        if (!this.telemetry.keepsEvents)
          this.telemetry.count({
            op: op.op,
            backend: name,
            attempt,
            ok: true,
            durationMs,
            bytesMoved: moved.bytes,
            reason,
            costsMs: plan.costsMs,
          });
        else {
          this.telemetry.recordOp({
            seq: this.telemetry.nextSeq(),
            callId,
            attempt,
            op: op.op,
            label,
            dtype,
            shapes,
            backend: name,
            reason,
            costsMs: plan.costsMs,
            ok: true,
            error: undefined,
            startMs,
            durationMs,
            kernelMs: result.kernelMs,
            estimatedMs,
            flops: work.flops,
            bytesMoved: moved.bytes,
          });
        }
        this.warmth.end(name, doneMs);
        return tensors;
      } catch (error) {
        this.warmth.end(name, this.clock());
        // The caller's mistakes (an abort, an input disposed mid-call, input only a kernel could find invalid) are
        // not the backend's failure: no health record, no fallback.
        const gone = disposedInput(op.op, inputs);
        const caller = gone === undefined ? callerError(error) : new DisposedError(gone);
        if (caller !== undefined) {
          if (probe) this.tracker.releaseProbe(op.op, name);
          throw caller;
        }
        const message = errorMessage(error);
        this.decisions.clear();
        failures ??= skippedFailures(plan);
        failures.push({ backend: name, error: message });
        this.tracker.record(op.op, name, false, runMs, probe);
        const durationMs = this.clock() - startMs;
        if (!this.telemetry.keepsEvents)
          this.telemetry.count({
            op: op.op,
            backend: name,
            attempt,
            ok: false,
            durationMs,
            bytesMoved: moved.bytes,
            reason,
            costsMs: plan.costsMs,
          });
        else {
          this.telemetry.recordOp({
            seq: this.telemetry.nextSeq(),
            callId,
            attempt,
            op: op.op,
            label,
            dtype,
            shapes,
            backend: name,
            reason,
            costsMs: plan.costsMs,
            ok: false,
            error: message,
            startMs,
            durationMs,
            kernelMs: undefined,
            estimatedMs,
            flops: work.flops,
            bytesMoved: moved.bytes,
          });
        }
        this.noteLostDevice(inputs, state.backend, error);
        reason = { kind: 'error-fallback', failed: name, error: message };
        const next = plan.fallbacks[attempt - 1];
        estimatedMs = next === undefined ? 0 : (plan.costsMs[next] ?? 0);
      }
    }
    throw new AllBackendsFailedError(op.op, failures ?? skippedFailures(plan));
  }

  /**
   * After `backend` failed to run an op on `inputs`: a lost device is noticed (even when the backend already shows its
   * next state, a re-init under way), and the inputs' copies there are dropped so the next call re-uploads them.
   */
  noteLostDevice(inputs: CallInputs, backend: CapableBackend, error: unknown): void {
    const health = backend.health();
    if (health.state === 'unhealthy') this.telemetry.notice('backend-unhealthy', backend.name, health.reason);
    else if (error instanceof DeviceLostError)
      this.telemetry.notice('backend-unhealthy', backend.name, errorMessage(error));
    if (error instanceof DeviceLostError || health.state === 'unhealthy') {
      for (const { tensor } of inputs) {
        this.residency.forgetReplica(tensor.storage, backend.name);
        if (tensor.contiguousCache !== undefined) this.residency.forgetReplica(tensor.contiguousCache, backend.name);
      }
    }
  }

  /**
   * The op bound to `backend` when every input is contiguous and already there (the common case in a loop): no copy,
   * no await. Undefined when any input needs a gather or a copy (bind() does those).
   */
  boundIfResident(op: Op<Tensor>, inputs: CallInputs, backend: CapableBackend): Op<BoundTensor> | undefined {
    for (let i = 0; i < inputs.length; i++) {
      const tensor = inputs[i]?.tensor;
      if (tensor === undefined || !tensor.isContiguous || !tensor.storage.replicas.has(backend.name)) return undefined;
    }
    return mapOpTensors(op, (t) => {
      const buffer = t.storage.replicas.get(backend.name);
      if (buffer === undefined) throw new BackendError('BIND_FAILED', backend.name, 'an input was not bound');
      return { dtype: t.dtype, shape: t.shape, buffer };
    });
  }

  /** Makes every input resident on `backend` (gathering views into contiguous copies first). */
  async bind(op: Op<Tensor>, backend: CapableBackend, moved: { bytes: number; ms: number }): Promise<Op<BoundTensor>> {
    const bound = new Map<Tensor, BoundTensor>();
    for (const { tensor } of opInputs(op)) {
      if (bound.has(tensor)) continue;
      const storage = await this.contiguousStorage(tensor, moved);
      const { buffer, cost } = await this.residency.ensureOn(storage, tensor, backend);
      moved.bytes += cost.bytes;
      moved.ms += cost.ms;
      bound.set(tensor, { dtype: tensor.dtype, shape: tensor.shape, buffer });
    }
    return mapOpTensors(op, (t) => {
      const b = bound.get(t);
      if (b === undefined) throw new BackendError('BIND_FAILED', backend.name, 'an input was not bound');
      return b;
    });
  }

  /** A new call id (sequence steps take one each, as single calls do). */
  newCallId(): number {
    return ++this.nextCallId;
  }

  /** A contiguous storage of `t`: its own, or a gathered copy kept as its contiguousCache (copies counted in `moved`). */
  async contiguousStorage(t: Tensor, moved: { bytes: number; ms: number }): Promise<Storage> {
    if (t.isContiguous) return t.storage;
    if (t.contiguousCache !== undefined) return t.contiguousCache;
    const spent = { bytes: 0 };
    const t0 = this.clock();
    const host = await this.residency.hostBytes(t.storage, spent);
    if (spent.bytes > 0) moved.ms += this.clock() - t0; // the base's copy to the host (the gather below is the call's own work)
    const bytes = contiguousBytes(t, host);
    moved.bytes += spent.bytes;
    const storage = new Storage(t.dtype, bytes.byteLength, bytes.slice(), this.owner);
    this.residency.track(storage);
    t.contiguousCache = storage;
    return storage;
  }

  /** Wraps a backend's output buffers as tensors resident there, after checking them. */
  private adopt(backend: CapableBackend, result: RunResult, outputs: readonly TensorSpec[], opKey: string): Tensor[] {
    return checkedOutputs(backend, result, outputs).map((buffer, i) =>
      this.tensorOn(backend.name, buffer, outputs[i] ?? { dtype: 'f32', shape: [] }, opKey),
    );
  }

  /** A backend's buffer as a tensor resident there, its device memory freed when it is garbage-collected. */
  tensorOn(backend: string, buffer: DeviceBuffer, spec: TensorSpec, producedBy: string | undefined): Tensor {
    const storage = new Storage(spec.dtype, buffer.byteLength, undefined, this.owner);
    storage.replicas.set(backend, buffer);
    storage.producedBy = producedBy;
    this.residency.track(storage);
    return new Tensor(this.host, storage, spec.dtype, spec.shape);
  }

  /** Lets each output be recomputed from `op` if its only copy is lost before it is read (lineage.ts). */
  private recordLineage(op: Op<Tensor>, label: string | undefined, outputs: readonly Tensor[]): void {
    const weak = OpLineage.weakOp(op);
    for (const [i, output] of outputs.entries())
      output.storage.lineage = new OpLineage(weak, i, label, this.rerun, this.recomputeNotice);
  }

  /** Rejects with DeadlineExceededError past the deadline; a late result's buffers are freed. */
  withDeadline<R extends RunResult>(backend: CapableBackend, op: string, run: Promise<R>): Promise<R> {
    return new Promise((resolve, reject) => {
      let expired = false;
      const timer = startTimer(() => {
        expired = true;
        reject(new DeadlineExceededError(backend.name, op, this.deadlineMs));
      }, this.deadlineMs);
      run.then(
        (result) => {
          cancelTimer(timer);
          if (expired) freeOutputs(backend, result);
          else resolve(result);
        },
        (error: unknown) => {
          cancelTimer(timer);
          if (!expired) reject(error);
        },
      );
    });
  }
}

/**
 * A run's output buffers after checking them against the output specs (count, owner, byte length); on a mismatch
 * every buffer the backend owns is freed and BAD_OUTPUT thrown.
 */
export function checkedOutputs(
  backend: CapableBackend,
  result: RunResult,
  outputs: readonly TensorSpec[],
): readonly DeviceBuffer[] {
  const problem =
    result.outputs.length !== outputs.length
      ? `returned ${result.outputs.length} outputs, expected ${outputs.length}`
      : result.outputs.findIndex(
          (b, i) =>
            b.backend !== backend.name ||
            b.byteLength !== byteLengthOf(outputs[i]?.dtype ?? 'f32', numel(outputs[i]?.shape ?? [])),
        );
  if (typeof problem === 'string' || problem >= 0) {
    for (const b of result.outputs) if (b.backend === backend.name) backend.free(b);
    throw new BackendError(
      'BAD_OUTPUT',
      backend.name,
      typeof problem === 'string' ? problem : `output ${problem} has the wrong size or owner`,
    );
  }
  return result.outputs;
}

/** The backends a plan left out, as failures of an AllBackendsFailedError. */
function skippedFailures(plan: SchedulePlan): BackendFailure[] {
  return plan.skipped.map((s) => ({ backend: s.backend, error: `skipped: ${s.reason}` }));
}

/** Frees the outputs of a result nobody waits for any more (past its deadline, or aborted, or a warm-up's). */
export function freeOutputs(backend: CapableBackend, result: RunResult): void {
  for (const buffer of result.outputs) {
    try {
      backend.free(buffer);
    } catch {
      // free must not throw; nothing more to do for a late result.
    }
  }
}
