// The engine: tensors in, tensors out, each op on the backend the scheduler picks, with transparent fallback.
import './disposable.ts';
import type { BackendHealth, BoundTensor, CapableBackend, PerformanceProfile, RunResult } from './backend.ts';
import { checkCapabilities } from './capability.ts';
import { monotonicClock, type Clock } from './clock.ts';
import { byteLengthOf, DTYPES, type DType, type HostArray } from './dtype.ts';
import { CsrChecks } from './csr-check.ts';
import { checkCallOptions, checkOptionKeys, checkStrategy, raceAbort, throwIfAborted, type AbortSignalLike, type CallOptions } from './call-options.ts';
import { AllBackendsFailedError, BackendError, callerError, DeadlineExceededError, DeviceLostError, DisposedError, errorMessage, InvalidArgumentError, type BackendFailure } from './errors.ts';
import { opMemory, unplannable } from './limits.ts';
import type { AttentionOptions, RmsNormOptions, RopeOptions, SoftmaxOptions, SpreadOptions } from './op-options.ts';
import { inferOutputsOf, opWork, type OpWork } from './op-info.ts';
import { mapOpTensors, OP_KINDS, opInputs, type Op, type SpreadActivationOp, type TensorSpec } from './ops.ts';
import { checkOpArgument, checkOwnTensor, disposedInput, newTensorOwner } from './ownership.ts';
import { Residency } from './residency.ts';
import type { CopyPoint } from './copy-times.ts';
import { CostModel, type CostModelConfig } from './scheduler/cost-model.ts';
import { opKeyOf } from './scheduler/op-key.ts';
import { DecisionCache, type CachedDecision, type DecisionCacheConfig } from './scheduler/decision-cache.ts';
import { ReadBackRates } from './scheduler/read-back.ts';
import { DEFAULT_PROFILES, rooflineMs } from './scheduler/roofline.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import type { Candidate, SchedulePlan, SchedulerConfig, SelectionReason, Strategy } from './scheduler/selection.ts';
import { Tracker, type TrackerConfig } from './scheduler/tracker.ts';
import { WarmthTracker } from './scheduler/warmth.ts';
import { assertValidShape, numel } from './shape.ts';
import { Telemetry } from './telemetry/telemetry.ts';
import { contiguousBytes, Storage, Tensor, type TensorHost } from './tensor.ts';
import { bytesOfData, dtypeOf, type TensorData } from './tensor-data.ts';
import { cancelTimer, startTimer } from './timers.ts';

/** Everything createEngine / new Engine accept; only `backends` is required. */
export interface EngineOptions {
  /** Backends to schedule over (initialised by Engine.create). */
  readonly backends: readonly CapableBackend[];
  /** Default strategy for every call (default 'auto'). */
  readonly strategy?: Strategy;
  /** Use CPU backends only. */
  readonly forceCpu?: boolean;
  /** Scheduler tuning (hysteresis, min batch, exploration). */
  readonly scheduler?: Partial<Omit<SchedulerConfig, 'forceCpu'>>;
  /** Cost model tuning (window, half-life). */
  readonly costModel?: Partial<CostModelConfig>;
  /** Circuit breaker tuning (success-rate threshold, cool-down). */
  readonly tracker?: Partial<TrackerConfig>;
  /** Reuse of plans by identical calls (`{ reuse: 0 }` plans every call afresh). */
  readonly decisionCache?: Partial<DecisionCacheConfig>;
  /** Events kept in the telemetry ring (default 10,000). */
  readonly telemetryCapacity?: number;
  /** An attempt running longer than this is abandoned and re-run elsewhere, ms (default 60,000). */
  readonly opDeadlineMs?: number;
  /** Minimum time between attempts to re-initialise an unhealthy backend, ms (default 5,000). */
  readonly recoveryIntervalMs?: number;
  /** Time source (tests inject a fake one). */
  readonly clock?: Clock;
}

/** A registered backend and what the engine knows about it. */
export interface BackendStatus {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: 'cpu' | 'gpu';
  /** Whether init() succeeded. */
  readonly available: boolean;
  /** Why init() failed, when it did. */
  readonly unavailableReason: string | undefined;
  /** Device name, when available. */
  readonly device: string | undefined;
  /** Whether the device is a GPU emulated on the CPU (SwiftShader, lavapipe): slow for anything a GPU is for. */
  readonly software: boolean;
  /** Health now. */
  readonly health: BackendHealth;
}

/** The decision explain() reports, without running anything. */
export interface Explanation extends SchedulePlan {
  /** Op id. */
  readonly op: string;
  /** Work of the call. */
  readonly work: OpWork;
}

/** A call whose plan is made: what execute() needs. */
interface PlannedCall {
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
  readonly inputs: ReadonlyArray<{ name: string; tensor: Tensor }>;
  /** The reused plan, when the decision cache served this call. */
  readonly cached: CachedDecision | undefined;
  /** The cost model's key of the call. */
  readonly opKey: string;
}

interface BackendState {
  readonly backend: CapableBackend;
  available: boolean;
  unavailableReason: string | undefined;
  profile: PerformanceProfile;
  /** describe().features, read once at init (capability checks run on every decision). */
  features: readonly string[];
  lastRecoveryAt: number;
  recovering: boolean;
  /** It initialised once: a later failed re-init is retried (a GPU process restarting under load), never given up. */
  wasReady: boolean;
  /** 'unavailable: <reason>', built once when init fails (decisions read it on every call). */
  unusableText: string;
}

/** Runs ops on the best backend for each call; see README for the rules. */
export class Engine {
  /** What happened: per-op events, summary, Chrome trace, Prometheus. */
  readonly telemetry: Telemetry;
  /** Strategy used when a call does not name one. */
  strategy: Strategy;
  private readonly states = new Map<string, BackendState>();
  private readonly scheduler: Scheduler;
  private readonly costModel: CostModel;
  private readonly tracker: Tracker;
  private readonly decisions: DecisionCache;
  /** Registered backend names, for checking `{ only }` strategies. */
  private readonly backendNames: ReadonlySet<string>;
  /** Backend name -> bit index, for residency signatures. */
  private readonly backendIndex = new Map<string, number>();
  /** The cost model's decision count of an op key (bound once: the decision cache calls it on every lookup). */
  private readonly decisionCountOf: (opKey: string) => number;
  private readonly residency: Residency;
  /** How often each op's outputs are read back to the host (charged to backends that must copy them back). */
  private readonly readBack = new ReadBackRates();
  /** Tells op calls just after an idle host (slow on every backend) from the rest, so none is learned from. */
  private readonly warmth = new WarmthTracker();
  private readonly clock: Clock;
  private readonly deadlineMs: number;
  private readonly recoveryIntervalMs: number;
  private readonly host: TensorHost;
  /** Marks the storages of this engine's tensors: another engine's are refused, never looked up. */
  private readonly owner = newTensorOwner();
  /** spreadActivation graphs (rowPtr, colIdx storages) already checked. */
  private readonly csr = new CsrChecks();
  private nextCallId = 0;
  private disposed = false;

  /** Builds an engine and initialises every backend (failures are recorded, not thrown). */
  static async create(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await engine.init();
    return engine;
  }

  constructor(options: EngineOptions) {
    const names = new Set<string>();
    for (const b of options.backends) {
      if (names.has(b.name)) throw new InvalidArgumentError('backends', b.name, 'backend names must be unique');
      names.add(b.name);
    }
    this.backendNames = names;
    if (options.strategy !== undefined) checkStrategy('createEngine.strategy', options.strategy, names);
    this.clock = options.clock ?? monotonicClock;
    this.strategy = options.strategy ?? 'auto';
    this.deadlineMs = options.opDeadlineMs ?? 60_000;
    this.recoveryIntervalMs = options.recoveryIntervalMs ?? 5_000;
    this.telemetry = new Telemetry(this.clock, options.telemetryCapacity);
    this.costModel = new CostModel(options.costModel);
    this.tracker = new Tracker(this.clock, options.tracker);
    this.decisions = new DecisionCache(options.decisionCache);
    this.decisionCountOf = this.costModel.decisionCount.bind(this.costModel);
    this.tracker.onTransition = (op, backend, to, rate) => {
      this.decisions.clear();
      this.telemetry.notice(`circuit-${to}`, backend, `success rate ${rate.toFixed(2)}`, op);
    };
    this.scheduler = new Scheduler(this.costModel, this.tracker, { ...options.scheduler, forceCpu: options.forceCpu ?? false });
    for (const backend of options.backends) {
      this.backendIndex.set(backend.name, this.backendIndex.size);
      this.states.set(backend.name, { backend, available: false, unavailableReason: 'not initialised', profile: DEFAULT_PROFILES[backend.kind], features: [], lastRecoveryAt: -Infinity, recovering: false, wasReady: false, unusableText: 'unavailable: not initialised' });
    }
    const backends = new Map(options.backends.map((b) => [b.name, b]));
    this.residency = new Residency(backends, this.clock, (name) => this.states.get(name)?.profile.transferBytesPerMs ?? Infinity, (name) => this.warmth.copyIsCold(name, this.clock()));
    this.host = {
      bytesForRead: (storage) => {
        this.noteReadBack(storage, true);
        return this.residency.bytesForRead(storage);
      },
      release: (storage) => {
        this.noteReadBack(storage, false);
        this.residency.release(storage);
      },
    };
  }

  /** Initialises every backend concurrently; a failure marks that backend unavailable with its reason. */
  async init(): Promise<void> {
    await Promise.all([...this.states.values()].map((s) => this.initBackend(s)));
  }

  /** Registered backends with availability, device and health. */
  backends(): BackendStatus[] {
    return [...this.states.values()].map((s) => {
      const device = s.available ? s.backend.describe() : undefined;
      return {
        name: s.backend.name,
        kind: s.backend.kind,
        available: s.available,
        unavailableReason: s.unavailableReason,
        device: device?.name,
        software: device?.software === true,
        health: s.available ? s.backend.health() : { state: 'unavailable', reason: s.unavailableReason ?? 'unknown' },
      };
    });
  }

  /** A tensor from host data (copied). dtype defaults from the array type (Float32Array -> f32, ...). */
  tensor(data: TensorData, shape: readonly number[], dtype?: DType): Tensor {
    this.assertLive();
    assertValidShape('tensor.shape', shape);
    const dt = dtypeOf(data, dtype);
    const bytes = bytesOfData(data, dt);
    const expected = byteLengthOf(dt, numel(shape));
    if ((dt === 'q8_0' || dt === 'q4_0') && (shape[shape.length - 1] ?? 0) % 32 !== 0) {
      throw new InvalidArgumentError('tensor.shape', [...shape], `last dimension must be a multiple of 32 for ${dt}`);
    }
    if (bytes.byteLength !== expected) {
      throw new InvalidArgumentError('tensor.data', `${bytes.byteLength} bytes`, `must be ${expected} bytes for shape [${shape.join(', ')}] ${dt}`);
    }
    const storage = new Storage(dt, expected, bytes, this.owner);
    this.residency.track(storage);
    return new Tensor(this.host, storage, dt, shape);
  }

  /** Runs one op; resolves with its outputs (topK has two: values, indices). */
  async run(op: Op<Tensor>, options?: CallOptions): Promise<Tensor[]> {
    this.assertLive();
    checkCallOptions('run.options', options, this.backendNames);
    // A Tensor is its own TensorSpec, so the op needs no copy to be validated and priced.
    const inputs = checkOpArgument('run.op', op, this.owner, 'refuse');
    const signal = options?.signal;
    throwIfAborted(signal, op.op);
    const label = options?.label;
    const spec: Op<TensorSpec> = op;
    const outputs = inferOutputsOf(spec, inputs);
    if (op.op === 'spreadActivation') await this.checkGraph(op, inputs);
    const work = opWork(spec, outputs);
    const chosen = options?.strategy ?? this.strategy;
    const kind = this.callKind(spec, inputs, chosen);
    const residency = kind === undefined ? 0 : this.residencySignature(inputs);
    const cached = kind === undefined ? undefined : this.reusableDecision(work, kind, residency);
    if (cached !== undefined) {
      this.costModel.tick(cached.opKey);
      return this.execute({ op, spec, outputs, work, plan: cached.plan, label, signal, inputs, cached, opKey: cached.opKey });
    }
    const request = this.requestFor(spec, inputs, work, outputs);
    const planned = this.scheduler.plan(request, chosen, true);
    if (!planned.ok) throw unplannable(spec, planned.skipped, planned.shortfall);
    // A backend waiting to recover is looked at again on every call (that is what starts its re-init): not cached.
    if (planned.cacheable && !request.awaitingRecovery && kind !== undefined) {
      const opKey = request.opKey;
      // The drift check compares run times: the plan's estimate less the transfers it charged the chosen backend.
      const selection = planned.plan.selection;
      const transferMs = request.candidates.find((c) => c.name === selection.backend)?.transferMs ?? 0;
      this.decisions.store(work.flops, work.bytes, kind, residency, opKey, planned.plan, this.costModel.decisionCount(opKey), selection.estimatedMs - transferMs);
    }
    return this.execute({ op, spec, outputs, work, plan: planned.plan, label, signal, inputs, cached: undefined, opKey: request.opKey });
  }

  /** What the engine learned of `backend`'s copies to and from the host: per size class, typical bytes and median ms. */
  copyTimes(backend: string): { upload: readonly CopyPoint[]; download: readonly CopyPoint[] } {
    return this.residency.copyPoints(backend);
  }

  /** The decision and its reason for an op, without running it or changing what the scheduler learned. */
  explain(op: Op<Tensor>, options?: Pick<CallOptions, 'strategy'>): Explanation {
    this.assertLive();
    checkOptionKeys('explain.options', options, []);
    if (options?.strategy !== undefined) checkStrategy('explain.options.strategy', options.strategy, this.backendNames);
    const inputs = checkOpArgument('explain.op', op, this.owner, 'allow');
    const spec: Op<TensorSpec> = op;
    const outputs = inferOutputsOf(spec, inputs);
    const work = opWork(spec, outputs);
    const chosen = options?.strategy ?? this.strategy;
    const kind = this.callKind(spec, inputs, chosen);
    const cached = kind === undefined ? undefined : this.reusableDecision(work, kind, this.residencySignature(inputs));
    if (cached !== undefined) return explanationOf(cached.plan, op.op, work);
    const planned = this.scheduler.plan(this.requestFor(spec, inputs, work, outputs), chosen, false);
    if (!planned.ok) throw unplannable(spec, planned.skipped, planned.shortfall);
    return explanationOf(planned.plan, op.op, work);
  }

  /**
   * Throws what run() would for `tensor` as its input `argument`: InvalidArgumentError unless it is a Tensor of this
   * engine, DisposedError when disposed (for code that takes tensors for this engine, such as a graph's constants).
   */
  checkTensor(argument: string, tensor: Tensor): void {
    checkOwnTensor(argument, tensor, this.owner);
  }

  /** Per (op, backend) success counts, circuit state and latency percentiles. */
  trackerStats(): ReturnType<Tracker['stats']> {
    return this.tracker.stats();
  }

  /** Frees every backend. Tensors created by this engine become unusable. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.states.values()].map((s) => s.backend.dispose().catch(() => undefined)));
  }

  /** dispose(), for `await using engine = await createEngine()` blocks. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  // ---- convenience wrappers, one per op; each takes the call options (strategy, label, signal) last ----

  /** a [M, K] x b [K, N] -> [M, N]. */
  async matmul(a: Tensor, b: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'matmul', a, b }, options);
  }
  /** x [M, K] f32 times quantized weights w [N, K] -> [M, N]. */
  async quantizedMatmul(x: Tensor, w: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'quantizedMatmul', x, w }, options);
  }
  /** q8_0 / q4_0 / f16 -> f32. */
  async dequantize(x: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'dequantize', x }, options);
  }
  /** a + b (b may broadcast over a's leading dimensions). */
  async add(a: Tensor, b: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'add', a, b }, options);
  }
  /** a * b elementwise (b may broadcast). */
  async mul(a: Tensor, b: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'mul', a, b }, options);
  }
  /** x * factor. */
  async scale(x: Tensor, factor: number, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'scale', x, factor }, options);
  }
  /** Softmax over the last axis (the only one supported: `axis` may be -1 or rank - 1), optionally causal. */
  async softmax(x: Tensor, options: SoftmaxOptions & CallOptions = {}): Promise<Tensor> {
    checkOptionKeys('softmax.options', options, ['causal', 'axis']);
    const { causal = false, axis, ...call } = options;
    if (axis !== undefined && axis !== -1 && axis !== x.shape.length - 1) {
      throw new InvalidArgumentError('softmax.options.axis', axis, `only the last axis is supported (-1 or ${x.shape.length - 1})`);
    }
    return this.single({ op: 'softmax', x, causal }, call);
  }
  /** RMSNorm over the last dimension, times `weight` when given. */
  async rmsNorm(x: Tensor, options: RmsNormOptions<Tensor> & CallOptions = {}): Promise<Tensor> {
    checkOptionKeys('rmsNorm.options', options, ['weight', 'eps']);
    const { weight, eps = 1e-5, ...call } = options;
    return this.single({ op: 'rmsNorm', x, weight, eps }, call);
  }
  /** Rotary position embedding on [seq, heads, headDim]. */
  async rope(x: Tensor, options: RopeOptions & CallOptions = {}): Promise<Tensor> {
    checkOptionKeys('rope.options', options, ['positionOffset', 'base', 'mode']);
    const { positionOffset = 0, base = 10000, mode = 'interleaved', ...call } = options;
    return this.single({ op: 'rope', x, positionOffset, base, mode }, call);
  }
  /** x * sigmoid(x). */
  async silu(x: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'silu', x }, options);
  }
  /** silu(gate) * up. */
  async swiglu(gate: Tensor, up: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'swiglu', gate, up }, options);
  }
  /** Multi-head attention over q [Sq, H, D], k/v [Sk, Hkv, D] -> [Sq, H, D]; `scale` defaults to 1/sqrt(D). */
  async attention(q: Tensor, k: Tensor, v: Tensor, options: AttentionOptions & CallOptions = {}): Promise<Tensor> {
    checkOptionKeys('attention.options', options, ['causal', 'scale']);
    const { causal = false, scale, ...call } = options;
    return this.single({ op: 'attention', q, k, v, causal, scale }, call);
  }
  /** Cosine similarity [Q, D] x [T, D] -> [Q, T]. */
  async cosineSimilarity(queries: Tensor, targets: Tensor, options?: CallOptions): Promise<Tensor> {
    return this.single({ op: 'cosineSimilarity', queries, targets }, options);
  }
  /** The k largest values of each row of x [rows, n], in descending order, and their indices: each [rows, k]. */
  async topK(x: Tensor, k: number, options?: CallOptions): Promise<{ values: Tensor; indices: Tensor }> {
    const [values, indices] = await this.run({ op: 'topK', x, k }, options);
    if (values === undefined || indices === undefined) throw new BackendError('BAD_OUTPUT', 'engine', 'topK returned fewer than two outputs');
    return { values, indices };
  }
  /** Spreading activation over a CSR graph. */
  async spreadActivation(graph: { rowPtr: Tensor; colIdx: Tensor; weights: Tensor }, initial: Tensor, options: SpreadOptions & CallOptions): Promise<Tensor> {
    checkOptionKeys('spreadActivation.options', options, ['decay', 'threshold', 'iterations']);
    const { decay, threshold, iterations, ...call } = options;
    return this.single({ op: 'spreadActivation', rowPtr: graph.rowPtr, colIdx: graph.colIdx, weights: graph.weights, initial, decay, threshold, iterations }, call);
  }

  private async single(op: Op<Tensor>, options: CallOptions | undefined): Promise<Tensor> {
    const [out] = await this.run(op, options);
    if (out === undefined) throw new BackendError('BAD_OUTPUT', 'engine', `${op.op} returned no output`);
    return out;
  }

  // ---- internals ----

  private assertLive(): void {
    if (this.disposed) throw new DisposedError('engine');
  }

  /**
   * spreadActivation's CSR arrays, checked once per (rowPtr, colIdx) pair before any backend is asked (the bytes are
   * brought to the host if they only live on a device).
   */
  private async checkGraph(op: SpreadActivationOp<Tensor>, inputs: ReadonlyArray<{ name: string; tensor: Tensor }>): Promise<void> {
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

  private requestFor(
    spec: Op<TensorSpec>,
    inputs: ReadonlyArray<{ name: string; tensor: Tensor }>,
    work: OpWork,
    outputs: readonly TensorSpec[],
  ): { op: string; opKey: string; work: OpWork; candidates: Candidate[]; awaitingRecovery: boolean } {
    const opKey = opKeyOf(spec, inputs);
    const outBytes = opMemory(spec, outputs).outputBytes;
    const readBackRate = this.readBack.rate(opKey);
    const candidates: Candidate[] = [];
    let awaitingRecovery = false;
    for (const s of this.states.values()) {
      const b = s.backend;
      let unusable: string | undefined;
      if (s.recovering) {
        // Mid re-init a backend can look healthy before init() has finished; work sent now could be lost to it.
        unusable = RECOVERING_TEXT;
        awaitingRecovery = true;
      } else if (!s.available) {
        unusable = s.unusableText;
        if (s.wasReady) {
          awaitingRecovery = true;
          this.maybeRecover(s);
        }
      } else {
        const health = b.health();
        if (health.state === 'unhealthy' || health.state === 'unavailable') {
          unusable = `${health.state}: ${health.reason}`;
          awaitingRecovery = true;
          this.maybeRecover(s);
        } else {
          const verdict = b.supportsOp === undefined ? checkCapabilities(b.capabilities, s.features, spec, outputs) : b.supportsOp(spec, outputs);
          if (!verdict.ok) unusable = verdict.reason;
        }
      }
      if (unusable !== undefined) {
        candidates.push({ name: b.name, kind: b.kind, priority: b.priority, fallbackOnly: b.fallbackOnly ?? false, unusable, priorMs: Infinity, transferMs: 0, requiredBytes: 0, availableBytes: undefined });
        continue;
      }
      let transferMs = 0;
      let missing = 0;
      for (const { tensor } of inputs) {
        const storage = tensor.isContiguous ? tensor.storage : tensor.contiguousCache;
        if (storage === undefined) {
          const bytes = byteLengthOf(tensor.dtype, tensor.size);
          transferMs += bytes / s.profile.transferBytesPerMs;
          missing += bytes;
        } else {
          transferMs += this.residency.estimateMs(storage, b.name);
          missing += this.residency.missingBytes(storage, b.name);
        }
      }
      // Outputs this op's callers read back are copied to the host from wherever they were computed.
      if (readBackRate > 0) transferMs += readBackRate * this.residency.downloadEstimateMs(outBytes, b.name);
      const priorMs = b.estimateCost?.(spec, work) ?? rooflineMs(work, s.profile);
      const availableBytes = b.availableMemory !== undefined ? b.availableMemory() : b.describe().availableMemoryBytes;
      candidates.push({ name: b.name, kind: b.kind, priority: b.priority, fallbackOnly: b.fallbackOnly ?? false, unusable, priorMs, transferMs, requiredBytes: missing + outBytes + (b.scratchBytes?.(spec, outputs) ?? 0), availableBytes });
    }
    return { op: spec.op, opKey, work, candidates, awaitingRecovery };
  }

  /** Op, dtype and strategy as one number for the decision cache (undefined: don't cache this call). */
  private callKind(spec: Op<TensorSpec>, inputs: ReadonlyArray<{ tensor: Tensor }>, strategy: Strategy): number | undefined {
    let strategyIndex: number;
    if (strategy === 'auto') strategyIndex = 0;
    else if (strategy === 'gpu-preferred') strategyIndex = 1;
    else if (strategy === 'cpu-preferred') strategyIndex = 2;
    else {
      const index = this.backendIndex.get(strategy.only);
      if (index === undefined) return undefined;
      strategyIndex = 3 + index;
    }
    // Residency signatures are exact for up to 6 backends and 6 inputs (8 bits each, < 2^53).
    if (this.backendIndex.size > 6 || inputs.length > 6) return undefined;
    const first = inputs[0]?.tensor.dtype ?? 'f32';
    // A second dtype (a quantized weight's format) is part of the kind, as it is of the cost model's key (opKeyOf).
    const other = inputs.find(({ tensor }) => tensor.dtype !== first)?.tensor.dtype;
    const otherIndex = other === undefined ? 0 : 1 + DTYPES.indexOf(other);
    return ((OP_KINDS.indexOf(spec.op) * 8 + DTYPES.indexOf(first)) * 16 + otherIndex) * 64 + strategyIndex;
  }

  /** Where every input lives (host copy, replicas, or an ungathered view), as one number. */
  private residencySignature(inputs: ReadonlyArray<{ tensor: Tensor }>): number {
    let signature = 0;
    for (const { tensor } of inputs) {
      const storage = tensor.isContiguous ? tensor.storage : tensor.contiguousCache;
      let code = 1;
      if (storage !== undefined) {
        code = storage.host === undefined ? 2 : 3;
        for (const name of storage.replicas.keys()) code |= 4 << (this.backendIndex.get(name) ?? 0);
      }
      signature = signature * 256 + code;
    }
    return signature;
  }

  /** The first read or dispose of an op's output teaches the read-back rate of that op. */
  private noteReadBack(storage: Storage, read: boolean): void {
    const opKey = storage.producedBy;
    if (opKey === undefined) return;
    storage.producedBy = undefined;
    this.readBack.observe(opKey, read);
  }

  /** A cached plan still valid for this call: its backend must still be healthy. */
  private reusableDecision(work: OpWork, kind: number, residency: number): CachedDecision | undefined {
    const entry = this.decisions.lookup(work.flops, work.bytes, kind, residency, this.decisionCountOf);
    if (entry === undefined) return undefined;
    const health = this.states.get(entry.plan.selection.backend)?.backend.health();
    if (health === undefined || health.state === 'unhealthy' || health.state === 'unavailable') {
      this.decisions.clear();
      return undefined;
    }
    return entry;
  }

  /** Runs a planned call: the chosen backend, then each fallback in turn, until one succeeds. */
  private async execute(call: PlannedCall): Promise<Tensor[]> {
    const { op, spec, outputs, work, plan, label, signal, inputs, cached, opKey } = call;
    const callId = ++this.nextCallId;
    const order = [plan.selection.backend, ...plan.fallbacks];
    const failures: BackendFailure[] = plan.skipped.map((s) => ({ backend: s.backend, error: `skipped: ${s.reason}` }));
    const dtype = inputs[0]?.tensor.dtype ?? 'f32';
    const shapes = inputs.map((i) => i.tensor.shape.join('x')).join(', ');
    let reason: SelectionReason = plan.selection.reason;
    let estimatedMs = plan.selection.estimatedMs;
    for (let attempt = 1; attempt <= order.length; attempt++) {
      const name = order[attempt - 1] ?? '';
      const state = this.states.get(name);
      if (state === undefined) continue;
      // Fallbacks go through the breaker too; an open circuit is still tried as a last resort.
      const admission = this.tracker.admit(op.op, name);
      const probe = admission.admitted && admission.probe;
      const startMs = this.clock();
      const moved = { bytes: 0, ms: 0 };
      let runMs = 0;
      const cold = this.warmth.begin(name, startMs);
      try {
        throwIfAborted(signal, op.op);
        const bound = await this.bind(op, state.backend, moved);
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
        // What the call cost beyond its copies (binding, the run, adopting the outputs): the copies are priced on
        // their own from where the inputs live, and the rest is what another call of this op will pay here. The run
        // alone left out 0.01-0.02 ms of rocm's per-call work (H100 host, attention 16x8x64: engine 0.082 ms around
        // a 0.020 ms kernel), enough to turn near-ties with the CPU.
        const opMs = Math.max(runMs, this.clock() - startMs - moved.ms);
        const priorMs = state.backend.estimateCost?.(spec, work) ?? rooflineMs(work, state.profile);
        const offFromMs = this.costModel.observe(opKey, name, work.flops, priorMs, opMs, cold, this.clock());
        if (offFromMs !== undefined) {
          const { surprisesForRegimeChange, surpriseFactor, regimeMinSpanMs } = this.costModel.config;
          this.telemetry.notice('cost-model-reset', name, `${opKey}: ${surprisesForRegimeChange} or more measurements in a row of this size (${work.flops} flops) over ${regimeMinSpanMs} ms or more, ${surpriseFactor}x or more off the estimate (last ${opMs.toFixed(3)} ms, estimate ${offFromMs.toFixed(3)} ms); this size is re-learned from them`, op.op);
        }
        // A cold call's time says how long the backend took to wake up, not whether a cached plan still holds.
        if (!cold && cached !== undefined && attempt === 1) this.decisions.checkDrift(cached, opMs);
        else if (!cold) this.decisions.noteMeasured(work.flops, work.bytes, opKey, name, opMs);
        this.tracker.record(op.op, name, true, runMs, probe);
        this.telemetry.recordOp({
          seq: this.telemetry.nextSeq(), callId, attempt, op: op.op, label, dtype, shapes, backend: name, reason, ok: true, error: undefined,
          startMs, durationMs: this.clock() - startMs, kernelMs: result.kernelMs, estimatedMs, flops: work.flops, bytesMoved: moved.bytes,
        });
        this.warmth.end(name, this.clock());
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
        failures.push({ backend: name, error: message });
        this.tracker.record(op.op, name, false, runMs, probe);
        this.telemetry.recordOp({
          seq: this.telemetry.nextSeq(), callId, attempt, op: op.op, label, dtype, shapes, backend: name, reason, ok: false, error: message,
          startMs, durationMs: this.clock() - startMs, kernelMs: undefined, estimatedMs, flops: work.flops, bytesMoved: moved.bytes,
        });
        const health = state.backend.health();
        if (health.state === 'unhealthy') this.telemetry.notice('backend-unhealthy', name, health.reason);
        // Copies on a lost device are gone: drop them so the next call re-uploads from the host or another copy.
        if (error instanceof DeviceLostError || health.state === 'unhealthy') {
          for (const { tensor } of opInputs(op)) {
            this.residency.forgetReplica(tensor.storage, name);
            if (tensor.contiguousCache !== undefined) this.residency.forgetReplica(tensor.contiguousCache, name);
          }
        }
        reason = { kind: 'error-fallback', failed: name, error: message };
        const next = order[attempt];
        estimatedMs = next === undefined ? 0 : plan.costsMs[next] ?? 0;
      }
    }
    throw new AllBackendsFailedError(op.op, failures);
  }

  /** Makes every input resident on `backend` (gathering views into contiguous copies first). */
  private async bind(op: Op<Tensor>, backend: CapableBackend, moved: { bytes: number; ms: number }): Promise<Op<BoundTensor>> {
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

  private async contiguousStorage(t: Tensor, moved: { bytes: number; ms: number }): Promise<Storage> {
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
    const problem =
      result.outputs.length !== outputs.length
        ? `returned ${result.outputs.length} outputs, expected ${outputs.length}`
        : result.outputs.findIndex((b, i) => b.backend !== backend.name || b.byteLength !== byteLengthOf(outputs[i]?.dtype ?? 'f32', numel(outputs[i]?.shape ?? [])));
    if (typeof problem === 'string' || problem >= 0) {
      for (const b of result.outputs) if (b.backend === backend.name) backend.free(b);
      throw new BackendError('BAD_OUTPUT', backend.name, typeof problem === 'string' ? problem : `output ${problem} has the wrong size or owner`);
    }
    return result.outputs.map((buffer, i) => {
      const spec = outputs[i] ?? { dtype: 'f32', shape: [] };
      const storage = new Storage(spec.dtype, buffer.byteLength, undefined, this.owner);
      storage.replicas.set(backend.name, buffer);
      storage.producedBy = opKey;
      this.residency.track(storage);
      return new Tensor(this.host, storage, spec.dtype, spec.shape);
    });
  }

  /** Rejects with DeadlineExceededError past the deadline; a late result's buffers are freed. */
  private withDeadline(backend: CapableBackend, op: string, run: Promise<RunResult>): Promise<RunResult> {
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

  private async initBackend(s: BackendState): Promise<void> {
    this.decisions.clear();
    try {
      const result = await s.backend.init();
      if (result.ok) {
        s.available = true;
        s.wasReady = true;
        s.unavailableReason = undefined;
        const d = s.backend.describe();
        s.profile = d.performance ?? DEFAULT_PROFILES[s.backend.kind];
        s.features = d.features;
        this.telemetry.notice('backend-ready', s.backend.name, d.name);
      } else {
        s.available = false;
        s.unavailableReason = result.reason;
        s.unusableText = `unavailable: ${result.reason}`;
        this.telemetry.notice('backend-unavailable', s.backend.name, result.reason);
      }
    } catch (error) {
      s.available = false;
      s.unavailableReason = `init threw: ${errorMessage(error)}`;
      s.unusableText = `unavailable: ${s.unavailableReason}`;
      this.telemetry.notice('backend-unavailable', s.backend.name, s.unavailableReason);
    }
  }

  /** Re-initialises an unhealthy backend in the background, at most once per recoveryIntervalMs. */
  private maybeRecover(s: BackendState): void {
    const now = this.clock();
    if (s.recovering || now - s.lastRecoveryAt < this.recoveryIntervalMs) return;
    s.recovering = true;
    s.lastRecoveryAt = now;
    void this.initBackend(s).then(() => {
      s.recovering = false;
      this.decisions.clear();
      const health = s.backend.health();
      if (s.available && health.state !== 'unhealthy' && health.state !== 'unavailable') this.telemetry.notice('backend-recovered', s.backend.name, 'init succeeded after failure');
    });
  }
}

/** Why a backend that is being re-initialised after a failure gets no work. */
const RECOVERING_TEXT = 'recovering: re-initialising after a failure';

/** A plan with its op and work (built field by field: an object spread here cost ~1 us per call in V8). */
function explanationOf(plan: SchedulePlan, op: string, work: OpWork): Explanation {
  return { selection: plan.selection, fallbacks: plan.fallbacks, skipped: plan.skipped, costsMs: plan.costsMs, transfersMs: plan.transfersMs, probe: plan.probe, op, work };
}

/** Frees the outputs of a result nobody waits for any more (past its deadline, or aborted). */
function freeOutputs(backend: CapableBackend, result: RunResult): void {
  for (const buffer of result.outputs) {
    try {
      backend.free(buffer);
    } catch {
      // free must not throw; nothing more to do for a late result.
    }
  }
}

/** Reads a tensor as the array type of its dtype (a convenience over tensor.read()). */
export async function readTensor(t: Tensor): Promise<HostArray> {
  return t.read();
}
