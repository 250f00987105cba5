// The engine: tensors in, tensors out, each op on the backend the scheduler picks, with transparent fallback. This
// file is its public face (options, tensors, run, explain, one method per op); the work is done by the backend
// lifecycle (engine-backends.ts), the planning (engine-planning.ts) and the execution (engine-execution.ts).
import './disposable.ts';
import { monotonicClock } from './clock.ts';
import { byteLengthOf, type DType } from './dtype.ts';
import { checkCallOptions, checkOptionKeys, checkStrategy, throwIfAborted, type CallOptions } from './call-options.ts';
import type { CopyPoint } from './copy-times.ts';
import { BackendLifecycle, type BackendStatus } from './engine-backends.ts';
import { filledData, randomData, type RandomDType, type RandomOptions } from './creators.ts';
import { CallExecutor } from './engine-execution.ts';
import { SequenceRunner, type SequenceRun, type SequenceRunOptions } from './engine-sequence.ts';
import { BackgroundWarmUps, type WarmUpExample } from './engine-warmup.ts';
import type { EngineOptions, Explanation, MemoryNeed } from './engine-options.ts';
import { CallPlanner, type CallInputs } from './engine-planning.ts';
import { BackendError, DisposedError, InvalidArgumentError } from './errors.ts';
import type { AttentionOptions, RmsNormOptions, RopeOptions, SoftmaxOptions, SpreadOptions } from './op-options.ts';
import { inferOutputsOf, opWork, type OpWork } from './op-info.ts';
import { mapOpTensors, type InputDType, type Op, type OpKind, type TensorSpec } from './ops.ts';
import { checkOpArgument, checkOwnTensor, newTensorOwner } from './ownership.ts';
import { EngineProfile } from './profile/engine-profile.ts';
import { profileFingerprint } from './profile/profile-data.ts';
import { Residency } from './residency.ts';
import { CostModel } from './scheduler/cost-model.ts';
import { DecisionCache } from './scheduler/decision-cache.ts';
import { ReadBackRates } from './scheduler/read-back.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { RecordedSequence, type SequenceSpec } from './sequence.ts';
import type { SchedulePlan, Strategy } from './scheduler/selection.ts';
import { Tracker } from './scheduler/tracker.ts';
import { WarmthTracker } from './scheduler/warmth.ts';
import { assertValidShape, numel } from './shape.ts';
import { engineTelemetryView, telemetryLevelOf } from './engine-telemetry.ts';
import { Telemetry } from './telemetry/telemetry.ts';
import { Storage, Tensor, type TensorHost } from './tensor.ts';
import { bytesOfData, dtypeOf, type TensorData, type TensorDataOf } from './tensor-data.ts';
import { ENGINE_VERSION } from './version.ts';

export type { BackendStatus } from './engine-backends.ts';
export type { EngineOptions, Explanation, MemoryNeed } from './engine-options.ts';

/** Runs ops on the best backend for each call; see README for the rules. */
export class Engine {
  /** What happened: per-op events, summary, Chrome trace, Prometheus. */
  readonly telemetry: Telemetry;
  /** Strategy used when a call does not name one. */
  strategy: Strategy;
  /** What the engine learned of its devices: export() and import(), loaded and saved through `options.profile`. */
  readonly profile: EngineProfile;
  private readonly lifecycle: BackendLifecycle;
  private readonly planner: CallPlanner;
  private readonly executor: CallExecutor;
  private readonly sequences: SequenceRunner;
  /** GPU first runs done in the background while a CPU backend serves (reason `warming`). */
  private readonly warmUps: BackgroundWarmUps;
  private readonly costModel: CostModel;
  private readonly tracker: Tracker;
  /** Registered backend names, for checking `{ only }` strategies. */
  private readonly backendNames: ReadonlySet<string>;
  private readonly residency: Residency;
  /** How often each op's outputs are read back to the host (charged to backends that must copy them back). */
  private readonly readBack = new ReadBackRates();
  private readonly host: TensorHost;
  /** Marks the storages of this engine's tensors: another engine's are refused, never looked up. */
  private readonly owner = newTensorOwner();
  private disposed = false;

  /** Builds an engine and initialises every backend (failures are recorded, not thrown). */
  static async create(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await engine.init();
    await engine.profile.load();
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
    const clock = options.clock ?? monotonicClock;
    this.strategy = options.strategy ?? 'auto';
    const telemetry = new Telemetry(clock, {
      capacity: options.telemetryCapacity,
      level: telemetryLevelOf(options.telemetry),
      view: engineTelemetryView(() => ({ lifecycle: this.lifecycle, costModel: this.costModel })),
    });
    this.telemetry = telemetry;
    this.costModel = new CostModel(options.costModel);
    this.tracker = new Tracker(clock, options.tracker);
    const decisions = new DecisionCache(options.decisionCache);
    this.tracker.onTransition = (op, backend, to, rate) => {
      decisions.clear();
      telemetry.notice(`circuit-${to}`, backend, `success rate ${rate.toFixed(2)}`, op);
    };
    const scheduler = new Scheduler(this.costModel, this.tracker, {
      ...options.scheduler,
      forceCpu: options.forceCpu ?? false,
    });
    const lifecycle = new BackendLifecycle({
      backends: options.backends,
      clock,
      recoveryIntervalMs: options.recoveryIntervalMs ?? 5_000,
      telemetry,
      onChange: () => decisions.clear(),
      forceCpu: options.forceCpu ?? false,
    });
    this.lifecycle = lifecycle;
    // Tells op calls just after an idle host (slow on every backend) from the rest, so none is learned from.
    const warmth = new WarmthTracker();
    this.residency = new Residency({
      backends: new Map(options.backends.map((b) => [b.name, b])),
      clock,
      priorBytesPerMs: (name) => lifecycle.states.get(name)?.profile.transferBytesPerMs ?? Infinity,
      copyIsCold: (name) => warmth.copyIsCold(name, clock()),
    });
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
    const shared = { lifecycle, costModel: this.costModel, decisions, residency: this.residency };
    this.planner = new CallPlanner({ ...shared, scheduler, readBack: this.readBack });
    this.executor = new CallExecutor({
      ...shared,
      tracker: this.tracker,
      telemetry,
      warmth,
      clock,
      deadlineMs: options.opDeadlineMs ?? 60_000,
      owner: this.owner,
      host: this.host,
      rerun: (op, label) => this.run(op, { label }),
      profile: () => this.profile.noteLearned(),
      warmingUp: () => this.warmUps.inFlight > 0,
      firstRun: (opKey, backend, spec) => {
        if (backend.compilesOnFirstRun === true) this.warmUps.noteExample(opKey, backend.name, spec);
      },
    });
    this.sequences = new SequenceRunner({
      lifecycle,
      executor: this.executor,
      residency: this.residency,
      telemetry,
      tracker: this.tracker,
      costModel: this.costModel,
      learned: () => this.profile.noteLearned(),
      clock,
      owner: this.owner,
    });
    this.warmUps = new BackgroundWarmUps({
      ...shared,
      executor: this.executor,
      tracker: this.tracker,
      telemetry,
      warmth,
      clock,
    });
    this.profile = new EngineProfile({
      costModel: this.costModel,
      residency: this.residency,
      readBack: this.readBack,
      backendNames: names,
      telemetry,
      fingerprint: () => this.fingerprint(),
      store: options.profile,
      saveIntervalMs: options.profileSaveIntervalMs ?? 5_000,
      onSeeded: () => decisions.clear(),
      warmUps: () => this.warmUps.exampleList(),
      onWarmUps: (examples) => this.warmUps.startExamples(examples, (example) => this.runOnZeros(example)),
    });
  }

  /** Initialises every backend concurrently; a failure marks that backend unavailable with its reason. */
  async init(): Promise<void> {
    await this.lifecycle.init();
  }

  /** Registered backends with availability, device and health. */
  backends(): BackendStatus[] {
    return this.lifecycle.statuses();
  }

  /**
   * A tensor from host data (copied). The dtype comes from the array type (Float32Array or number[] -> f32,
   * Int32Array -> i32, Uint32Array -> u32, Uint16Array -> f16 bits) or is given (required for q8_0 / q4_0 blocks in a
   * Uint8Array), and is part of the result's type: `tensor(new Float32Array(4), [2, 2])` is a `Tensor<'f32'>`.
   */
  tensor(data: Float32Array | readonly number[], shape: readonly number[], dtype?: 'f32'): Tensor<'f32'>;
  tensor(data: Int32Array, shape: readonly number[], dtype?: 'i32'): Tensor<'i32'>;
  tensor(data: Uint32Array, shape: readonly number[], dtype?: 'u32'): Tensor<'u32'>;
  tensor(data: Uint16Array, shape: readonly number[], dtype?: 'f16'): Tensor<'f16'>;
  tensor<D extends DType>(data: TensorDataOf[D], shape: readonly number[], dtype: D): Tensor<D>;
  tensor(data: TensorData, shape: readonly number[]): Tensor;
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
      throw new InvalidArgumentError(
        'tensor.data',
        `${bytes.byteLength} bytes`,
        `must be ${expected} bytes for shape [${shape.join(', ')}] ${dt}`,
      );
    }
    const storage = new Storage(dt, expected, bytes, this.owner);
    this.residency.track(storage);
    return new Tensor(this.host, storage, dt, shape);
  }

  /** A tensor of `shape` filled with 0 (f32 unless `dtype` says otherwise; quantized: zero blocks). */
  zeros(shape: readonly number[]): Tensor<'f32'>;
  zeros<D extends DType>(shape: readonly number[], dtype: D): Tensor<D>;
  zeros(shape: readonly number[], dtype: DType = 'f32'): Tensor {
    return this.filled('zeros', shape, 0, dtype);
  }

  /** A tensor of `shape` filled with 1 (f32 unless `dtype` says otherwise). */
  ones(shape: readonly number[]): Tensor<'f32'>;
  ones<D extends DType>(shape: readonly number[], dtype: D): Tensor<D>;
  ones(shape: readonly number[], dtype: DType = 'f32'): Tensor {
    return this.filled('ones', shape, 1, dtype);
  }

  /**
   * A tensor of `shape` filled with `value` (f32 unless `dtype` says otherwise): any number for f32 and f16 (-Infinity
   * makes a mask), an integer in range for i32 and u32, a finite number for q8_0 and q4_0 (quantized).
   */
  full(shape: readonly number[], value: number): Tensor<'f32'>;
  full<D extends DType>(shape: readonly number[], value: number, dtype: D): Tensor<D>;
  full(shape: readonly number[], value: number, dtype: DType = 'f32'): Tensor {
    return this.filled('full', shape, value, dtype);
  }

  /**
   * A tensor of `shape` with random values: uniform in [low, high) (default [0, 1)) or normal (mean, std; default 0,
   * 1), f32 or f16, from the seeded generator createRng (mulberry32): the same seed gives the same tensor on every run.
   */
  random(shape: readonly number[], options?: RandomOptions<'f32'>): Tensor<'f32'>;
  random<D extends RandomDType>(shape: readonly number[], options: RandomOptions<D> & { readonly dtype: D }): Tensor<D>;
  random(shape: readonly number[], options?: RandomOptions): Tensor {
    this.assertLive();
    const { data, dtype } = randomData(shape, options);
    return this.tensor(data, shape, dtype);
  }

  /** Runs one op; resolves with its outputs (topK has two: values, indices). */
  async run(op: Op<Tensor>, options?: CallOptions): Promise<Tensor[]> {
    return this.call('run.options', op, options);
  }

  /** run(), naming the options argument `where` in errors. */
  private async call(where: string, op: Op<Tensor>, options: CallOptions | undefined): Promise<Tensor[]> {
    this.assertLive();
    checkCallOptions(where, options, this.backendNames);
    // A Tensor is its own TensorSpec, so the op needs no copy to be validated and priced.
    const inputs = checkOpArgument('run.op', op, this.owner, 'refuse');
    const signal = options?.signal;
    throwIfAborted(signal, op.op);
    const label = options?.label;
    const spec: Op<TensorSpec> = op;
    const outputs = inferOutputsOf(spec, inputs);
    if (op.op === 'spreadActivation') await this.executor.checkGraph(op, inputs);
    const work = opWork(spec, outputs);
    const strategy = options?.strategy ?? this.strategy;
    const kind = this.planner.kindOf(spec.op, inputs, strategy);
    const residency = kind === undefined ? 0 : this.planner.residencySignature(inputs);
    const cached = kind === undefined ? undefined : this.planner.reusable(work, kind, residency);
    if (cached !== undefined) {
      this.costModel.tick(cached.opKey);
      return this.executor.execute({
        op,
        spec,
        outputs,
        work,
        plan: cached.plan,
        label,
        signal,
        inputs,
        cached,
        opKey: cached.opKey,
      });
    }
    const { plan, opKey } = this.planner.plan({ spec, inputs, work, outputs, strategy, kind, residency, commit: true });
    const call = { op, spec, outputs, work, plan, label, signal, inputs, cached: undefined, opKey };
    if (plan.warmUp !== undefined) this.warmUps.start(call, plan.warmUp);
    return this.executor.execute(call);
  }

  /**
   * Checks a sequence of ops over indexed values once (each step's dtypes, shapes and output specs, as run() would)
   * and keeps it for runSequence(); throws InvalidArgumentError naming the step. See sequence.ts.
   */
  recordSequence(spec: SequenceSpec): RecordedSequence {
    this.assertLive();
    return new RecordedSequence(spec, this.owner);
  }

  /**
   * Runs a recorded sequence on one backend (graph replay): no decision, validation or learning per step; each step
   * is still an op event (reason 'replay'). A backend failure frees what the run made and throws; the caller then
   * runs the ops one by one (see engine-sequence.ts).
   */
  async runSequence(
    sequence: RecordedSequence,
    inputs: readonly Tensor[],
    options: SequenceRunOptions,
  ): Promise<SequenceRun> {
    this.assertLive();
    return this.sequences.run(sequence, inputs, options);
  }

  /** Runs a profile's warm-up example once on its backend, on zeros; frees what it made. */
  private async runOnZeros(example: WarmUpExample): Promise<void> {
    const made: Tensor[] = [];
    try {
      const op = mapOpTensors(example.op, (spec) => {
        const t = this.zeros(spec.shape, spec.dtype);
        made.push(t);
        return t;
      });
      made.push(...(await this.run(op, { strategy: { only: example.backend }, label: 'warm-up (profile)' })));
    } finally {
      for (const t of made) t.dispose();
    }
  }

  /** What the engine learned of `backend`'s copies to and from the host: per size class, typical bytes and median ms. */
  copyTimes(backend: string): { upload: readonly CopyPoint[]; download: readonly CopyPoint[] } {
    return this.residency.copyPoints(backend);
  }

  /**
   * The decision and its reason for an op, without running it or changing what the scheduler learned. Takes the same
   * options object as run(): its strategy decides; label and signal are checked and have nothing to do here.
   */
  explain(op: Op<Tensor>, options?: CallOptions): Explanation {
    this.assertLive();
    checkCallOptions('explain.options', options, this.backendNames);
    const inputs: CallInputs = checkOpArgument('explain.op', op, this.owner, 'allow');
    const spec: Op<TensorSpec> = op;
    const outputs = inferOutputsOf(spec, inputs);
    const work = opWork(spec, outputs);
    const strategy = options?.strategy ?? this.strategy;
    const kind = this.planner.kindOf(spec.op, inputs, strategy);
    const residency = kind === undefined ? 0 : this.planner.residencySignature(inputs);
    const cached = kind === undefined ? undefined : this.planner.reusable(work, kind, residency);
    const plan =
      cached?.plan ?? this.planner.plan({ spec, inputs, work, outputs, strategy, kind, residency, commit: false }).plan;
    return explanationOf(plan, op.op, work, () => this.planner.memoryNeeds({ spec, inputs, work, outputs }));
  }

  /**
   * Throws what run() would for `tensor` as its input `argument`: InvalidArgumentError unless it is a Tensor of this
   * engine, DisposedError when disposed (for code that takes tensors for this engine, such as a graph's constants).
   */
  checkTensor(argument: string, tensor: Tensor): void {
    checkOwnTensor(argument, tensor, this.owner);
  }

  /**
   * Resolves once the GPU warm-ups running now have ended: those that stood a CPU backend in for a GPU (reason
   * `warming`) and those a loaded profile started. Calls need not wait for it; benchmarks and readiness checks may.
   */
  async whenWarm(): Promise<void> {
    await this.warmUps.settle();
  }

  /** Per (op, backend) success counts, circuit state and latency percentiles. */
  trackerStats(): ReturnType<Tracker['stats']> {
    return this.tracker.stats();
  }

  /** Saves the profile (when the engine has a store), then frees every backend. Its tensors become unusable. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.whenWarm();
    await this.profile.save();
    await this.lifecycle.dispose();
  }

  /** dispose(), for `await using engine = await createEngine()` blocks. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  // ---- one method per op; each takes the call options (strategy, label, signal) last, and carries the dtype: its
  // inputs are tensors of the dtypes the op's definition accepts (InputDType; two inputs of one dtype take the first's,
  // NoInfer), its output a tensor of the dtype the op gives (matmul of f16 is f16; softmax is f32), so read() returns
  // the matching array without a cast ----

  /** a [M, K] x b [K, N] -> [M, N], f32 or f16 (the output has the inputs' dtype). */
  async matmul<D extends InputDType<'matmul', 'a'>>(
    a: Tensor<D>,
    b: Tensor<NoInfer<D>>,
    options?: CallOptions,
  ): Promise<Tensor<D>> {
    return this.single('matmul', { op: 'matmul', a, b }, options, a.dtype);
  }
  /** x [M, K] f32 times quantized weights w [N, K] (q8_0 or q4_0) -> [M, N] f32. */
  async quantizedMatmul(
    x: Tensor<'f32'>,
    w: Tensor<InputDType<'quantizedMatmul', 'w'>>,
    options?: CallOptions,
  ): Promise<Tensor<'f32'>> {
    return this.single('quantizedMatmul', { op: 'quantizedMatmul', x, w }, options, 'f32');
  }
  /** q8_0 / q4_0 / f16 -> f32, same shape. */
  async dequantize(x: Tensor<InputDType<'dequantize', 'x'>>, options?: CallOptions): Promise<Tensor<'f32'>> {
    return this.single('dequantize', { op: 'dequantize', x }, options, 'f32');
  }
  /** a + b elementwise; b has a's shape or a suffix of it (broadcast over a's leading dimensions). f32 or f16. */
  async add<D extends InputDType<'add', 'a'>>(
    a: Tensor<D>,
    b: Tensor<NoInfer<D>>,
    options?: CallOptions,
  ): Promise<Tensor<D>> {
    return this.single('add', { op: 'add', a, b }, options, a.dtype);
  }
  /** a * b elementwise; b has a's shape or a suffix of it (broadcast). f32 or f16. */
  async mul<D extends InputDType<'mul', 'a'>>(
    a: Tensor<D>,
    b: Tensor<NoInfer<D>>,
    options?: CallOptions,
  ): Promise<Tensor<D>> {
    return this.single('mul', { op: 'mul', a, b }, options, a.dtype);
  }
  /** x * factor, f32 or f16. */
  async scale<D extends InputDType<'scale', 'x'>>(
    x: Tensor<D>,
    factor: number,
    options?: CallOptions,
  ): Promise<Tensor<D>> {
    return this.single('scale', { op: 'scale', x, factor }, options, x.dtype);
  }
  /** Softmax over the last axis (the only one supported: `axis` may be -1 or rank - 1), optionally causal. */
  async softmax(
    x: Tensor<InputDType<'softmax', 'x'>>,
    options: SoftmaxOptions & CallOptions = {},
  ): Promise<Tensor<'f32'>> {
    checkOptionKeys('softmax.options', options, ['causal', 'axis']);
    const { causal = false, axis, ...call } = options;
    if (axis !== undefined && axis !== -1 && axis !== x.shape.length - 1) {
      throw new InvalidArgumentError(
        'softmax.options.axis',
        axis,
        `only the last axis is supported (-1 or ${x.shape.length - 1})`,
      );
    }
    return this.single('softmax', { op: 'softmax', x, causal }, call, 'f32');
  }
  /** RMSNorm over the last dimension, times `weight` when given. */
  async rmsNorm(
    x: Tensor<InputDType<'rmsNorm', 'x'>>,
    options: RmsNormOptions<Tensor<InputDType<'rmsNorm', 'weight'>>> & CallOptions = {},
  ): Promise<Tensor<'f32'>> {
    checkOptionKeys('rmsNorm.options', options, ['weight', 'eps']);
    const { weight, eps = 1e-5, ...call } = options;
    return this.single('rmsNorm', { op: 'rmsNorm', x, weight, eps }, call, 'f32');
  }
  /** Rotary position embedding on [seq, heads, headDim]. */
  async rope(x: Tensor<InputDType<'rope', 'x'>>, options: RopeOptions & CallOptions = {}): Promise<Tensor<'f32'>> {
    checkOptionKeys('rope.options', options, ['positionOffset', 'base', 'mode']);
    const { positionOffset = 0, base = 10000, mode = 'interleaved', ...call } = options;
    return this.single('rope', { op: 'rope', x, positionOffset, base, mode }, call, 'f32');
  }
  /** x * sigmoid(x), elementwise (f32). */
  async silu(x: Tensor<InputDType<'silu', 'x'>>, options?: CallOptions): Promise<Tensor<'f32'>> {
    return this.single('silu', { op: 'silu', x }, options, 'f32');
  }
  /** GELU in the tanh approximation, elementwise (f32 or f16; the output has x's dtype). */
  async gelu<D extends InputDType<'gelu', 'x'>>(x: Tensor<D>, options?: CallOptions): Promise<Tensor<D>> {
    return this.single('gelu', { op: 'gelu', x }, options, x.dtype);
  }
  /** silu(gate) * up, same shapes (f32). */
  async swiglu(
    gate: Tensor<InputDType<'swiglu', 'gate'>>,
    up: Tensor<InputDType<'swiglu', 'up'>>,
    options?: CallOptions,
  ): Promise<Tensor<'f32'>> {
    return this.single('swiglu', { op: 'swiglu', gate, up }, options, 'f32');
  }
  /** Multi-head attention over q [Sq, H, D], k/v [Sk, Hkv, D] -> [Sq, H, D]; `scale` defaults to 1/sqrt(D). */
  async attention(
    q: Tensor<InputDType<'attention', 'q'>>,
    k: Tensor<InputDType<'attention', 'k'>>,
    v: Tensor<InputDType<'attention', 'v'>>,
    options: AttentionOptions & CallOptions = {},
  ): Promise<Tensor<'f32'>> {
    checkOptionKeys('attention.options', options, ['causal', 'scale']);
    const { causal = false, scale, ...call } = options;
    return this.single('attention', { op: 'attention', q, k, v, causal, scale }, call, 'f32');
  }
  /** Cosine similarity [Q, D] x [T, D] -> [Q, T] (a single query [D] gives [1, T]). */
  async cosineSimilarity(
    queries: Tensor<InputDType<'cosineSimilarity', 'queries'>>,
    targets: Tensor<InputDType<'cosineSimilarity', 'targets'>>,
    options?: CallOptions,
  ): Promise<Tensor<'f32'>> {
    return this.single('cosineSimilarity', { op: 'cosineSimilarity', queries, targets }, options, 'f32');
  }
  /** The k largest values of each row of x [rows, n] (or [n]), in descending order, and their indices: each [rows, k]. */
  async topK(
    x: Tensor<InputDType<'topK', 'x'>>,
    k: number,
    options?: CallOptions,
  ): Promise<{ values: Tensor<'f32'>; indices: Tensor<'i32'> }> {
    const [values, indices] = await this.call('topK.options', { op: 'topK', x, k }, options);
    if (values === undefined || indices === undefined)
      throw new BackendError('BAD_OUTPUT', 'engine', 'topK returned fewer than two outputs');
    return { values: outputOf('topK', values, 'f32'), indices: outputOf('topK', indices, 'i32') };
  }
  /** Spreading activation over a CSR graph (rowPtr, colIdx u32; weights, initial f32) -> activations [nodes]. */
  async spreadActivation(
    graph: { rowPtr: Tensor<'u32'>; colIdx: Tensor<'u32'>; weights: Tensor<'f32'> },
    initial: Tensor<InputDType<'spreadActivation', 'initial'>>,
    options: SpreadOptions & CallOptions,
  ): Promise<Tensor<'f32'>> {
    checkOptionKeys('spreadActivation.options', options, ['decay', 'threshold', 'iterations']);
    const { decay, threshold, iterations, ...call } = options;
    const op: Op<Tensor> = {
      op: 'spreadActivation',
      rowPtr: graph.rowPtr,
      colIdx: graph.colIdx,
      weights: graph.weights,
      initial,
      decay,
      threshold,
      iterations,
    };
    return this.single('spreadActivation', op, call, 'f32');
  }
  /** a [Ra, ...rest] then b [Rb, ...rest] -> [Ra + Rb, ...rest] along axis 0 (any dtype but the quantized ones). */
  async concat<D extends InputDType<'concat', 'a'>>(
    a: Tensor<D>,
    b: Tensor<NoInfer<D>>,
    options?: CallOptions,
  ): Promise<Tensor<D>> {
    return this.single('concat', { op: 'concat', a, b }, options, a.dtype);
  }

  /** zeros, ones and full: the checked data of `value` in `dtype`, as a tensor. */
  private filled(where: string, shape: readonly number[], value: number, dtype: DType): Tensor {
    this.assertLive();
    return this.tensor(filledData(where, shape, value, dtype), shape, dtype);
  }

  /** run() for an op method: its options are checked under the method's name (`matmul.options.strategy`). */
  private async single<D extends DType>(
    kind: OpKind,
    op: Op<Tensor>,
    options: CallOptions | undefined,
    dtype: D,
  ): Promise<Tensor<D>> {
    const [out] = await this.call(`${kind}.options`, op, options);
    if (out === undefined) throw new BackendError('BAD_OUTPUT', 'engine', `${op.op} returned no output`);
    return outputOf(kind, out, dtype);
  }

  /** The identity of the engine's version and available devices (a profile's fingerprint). */
  private fingerprint(): string {
    const parts = [...this.lifecycle.states.values()]
      .filter((s) => s.available)
      .map((s) => {
        const d = s.backend.describe();
        return { name: s.backend.name, kind: s.backend.kind, device: d.name, features: d.features };
      });
    return profileFingerprint(ENGINE_VERSION, parts);
  }

  private assertLive(): void {
    if (this.disposed) throw new DisposedError('engine');
  }

  /** The first read or dispose of an op's output teaches the read-back rate of that op. */
  private noteReadBack(storage: Storage, read: boolean): void {
    const opKey = storage.producedBy;
    if (opKey === undefined) return;
    storage.producedBy = undefined;
    this.readBack.observe(opKey, read);
  }
}

/**
 * A plan with its op, work and memory (built field by field: an object spread here cost ~1 us per call in V8). The
 * memory is worked out when first read, so that explain() costs what run()'s decision costs (the scheduler bench
 * times explain()).
 */
function explanationOf(
  plan: SchedulePlan,
  op: string,
  work: OpWork,
  memoryNeeds: () => Readonly<Record<string, MemoryNeed>>,
): Explanation {
  let memory: Readonly<Record<string, MemoryNeed>> | undefined;
  return {
    selection: plan.selection,
    fallbacks: plan.fallbacks,
    skipped: plan.skipped,
    costsMs: plan.costsMs,
    transfersMs: plan.transfersMs,
    probe: plan.probe,
    op,
    work,
    get memory() {
      memory ??= memoryNeeds();
      return memory;
    },
  };
}

/** An op's output as a tensor of the dtype its method promises (the output specs give it; a mismatch is a bug). */
function outputOf<D extends DType>(kind: OpKind, out: Tensor, dtype: D): Tensor<D> {
  if (!out.hasDType(dtype))
    throw new BackendError('BAD_OUTPUT', 'engine', `${kind} returned a ${out.dtype} tensor where ${dtype} was due`);
  return out;
}
