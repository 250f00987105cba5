// The executor: runs a built graph's nodes in order through one Engine (labels = node names, so each node is a
// slice in the Chrome trace), places them per the run's strategy ('auto': a whole-graph plan priced by the
// engine's scheduler, see placement.ts), frees every intermediate right after its last reader, and reports
// per-node backend, reason, time and bytes moved.
import {
  callerError,
  checkOptionKeys,
  InvalidArgumentError,
  mapOpTensors,
  sameShape,
  Tensor,
  type Clock,
  type DType,
  type Engine,
  type Op,
  type TensorData,
  type TensorSpec,
} from '@tandem/core';
import { decideNode, PlanCache, type NodeDecision, type PlacementSummary } from './node-decision.ts';
import type { PlacementPlan } from './placement.ts';
import { GraphRunError } from './errors.ts';
import type { ExecutionPlan } from './plan.ts';
import { latestCallEvents, nodeRecord, runReportOf, type NodeRecord, type RunReport } from './report.ts';
import { resolveStrategy, strategyName, type BackendPreference, type GraphStrategy } from './strategy.ts';
import type { SymbolicTensor } from './symbolic.ts';
import { applyView } from './views.ts';
import { inputResidency, placementUnsettled, recordPlan, Recordings, type Recording } from './replay.ts';

/** What run() accepts for an input: an engine tensor (used as is, never disposed) or host data (uploaded, freed after use). */
export type GraphInput = Tensor | TensorData;

/** Options of one run. */
export interface RunOptions extends BackendPreference {
  /** Placement of every node (default 'auto'). */
  readonly strategy?: GraphStrategy;
  /** Whether a settled plan may be recorded and replayed (default true; replay.ts). */
  readonly replay?: boolean;
}

/** The keys of RunOptions: any other is an InvalidArgumentError, never ignored. */
const RUN_OPTION_KEYS: readonly string[] = ['strategy', 'cpuBackend', 'gpuBackend', 'replay'];

/** Output names and their dtypes, where they are known to the type system (a decoder step's `{ out: 'f32' }`). */
export type OutputDTypes = Readonly<Record<string, DType>>;

/**
 * A run's outputs by name; the caller owns them. `get(name)` types each output by O (any dtype for a graph built at
 * run time); `get(name, dtype)` checks the dtype and types the tensor by it.
 */
export class GraphOutputs<O extends OutputDTypes = OutputDTypes> {
  private readonly tensors: ReadonlyMap<string, Tensor>;
  constructor(tensors: ReadonlyMap<string, Tensor>) {
    this.tensors = tensors;
  }
  /** The output `name`; throws naming the outputs there are (and, given a dtype, when the output has another). */
  get<K extends keyof O & string>(name: K): Tensor<O[K]>;
  get<D extends DType>(name: string, dtype: D): Tensor<D>;
  get(name: string, dtype?: DType): Tensor {
    const t = this.tensors.get(name);
    if (t === undefined)
      throw new InvalidArgumentError(
        'outputs.get.name',
        name,
        `is not an output (outputs: ${[...this.tensors.keys()].join(', ')})`,
      );
    const actual: DType = t.dtype;
    if (dtype !== undefined && actual !== dtype)
      throw new InvalidArgumentError('outputs.get.dtype', dtype, `must be the output's dtype (${name} is ${actual})`);
    return t;
  }
  /** Output names, in the order they were declared. */
  names(): string[] {
    return [...this.tensors.keys()];
  }
  /** Disposes every output. */
  dispose(): void {
    for (const t of this.tensors.values()) t.dispose();
  }
}

/** What run() resolves with (and DecoderBlock.forward, whose one output is `out`). */
export interface GraphRun<O extends OutputDTypes = OutputDTypes> {
  /** The outputs by name (owned by the caller: dispose them when done). */
  readonly outputs: GraphOutputs<O>;
  /** Per-node placement, time and bytes moved, and totals. */
  readonly report: RunReport;
}

/** Everything a Graph is made of (GraphBuilder.build() makes it). */
export interface GraphParts {
  /** Engine every node runs on. */
  readonly engine: Engine;
  /** Graph name. */
  readonly name: string;
  /** Clock for wall times. */
  readonly clock: Clock;
  /** Declared inputs by name. */
  readonly inputs: ReadonlyMap<string, SymbolicTensor>;
  /** Declared outputs by name. */
  readonly outputs: ReadonlyMap<string, SymbolicTensor>;
  /** Order, pruning and release points. */
  readonly plan: ExecutionPlan;
  /** Constants the graph uploaded itself (freed by dispose()). */
  readonly ownedConstants: readonly Tensor[];
}

/** Live tensors the executor owns during one run, with the peak (the buffer plan's effect, measured). */
class LiveSet {
  readonly tensors = new Map<number, Tensor>();
  bytes = 0;
  peakCount = 0;
  peakBytes = 0;
  add(id: number, t: Tensor): void {
    this.tensors.set(id, t);
    this.bytes += t.storage.byteLength;
    this.peakCount = Math.max(this.peakCount, this.tensors.size);
    this.peakBytes = Math.max(this.peakBytes, this.bytes);
  }
  release(id: number): void {
    const t = this.tensors.get(id);
    if (t === undefined) return;
    this.tensors.delete(id);
    this.bytes -= t.storage.byteLength;
    t.dispose();
  }
  /** Stops owning `id` without disposing it (an output handed to the caller). */
  handOver(id: number): void {
    const t = this.tensors.get(id);
    if (t === undefined) return;
    this.tensors.delete(id);
    this.bytes -= t.storage.byteLength;
  }
}

/** A built graph: run(inputs) as many times as needed. */
export class Graph {
  /** Graph name. */
  readonly name: string;
  private readonly parts: GraphParts;
  /** Views of constants, materialised once so a gathered copy of a permuted weight is made once and stays resident. */
  private readonly constantViews = new Map<number, Tensor>();
  private disposed = false;
  /** The placement plan of 'auto' runs, reused while inputs and weights stay where they were. */
  private readonly plans: PlanCache;
  /** Step names, in order (for the plan's reasons). */
  private readonly stepNames: readonly string[];
  /** Recorded plans and the runs settling towards one (replay.ts). */
  private readonly recordings = new Recordings();

  constructor(parts: GraphParts) {
    this.parts = parts;
    this.name = parts.name;
    this.plans = new PlanCache(parts.engine, parts.plan, parts.clock);
    this.stepNames = parts.plan.steps.map((n) => n.name);
  }

  /** Nodes that run, in order (node names and op ids). */
  get nodes(): ReadonlyArray<{ readonly name: string; readonly op: string }> {
    return this.parts.plan.steps.map((n) => ({ name: n.name, op: n.op.op }));
  }
  /** Order, pruning and release points: what the executor follows (and what placement plans are made of). */
  get execution(): ExecutionPlan {
    return this.parts.plan;
  }
  /** Nodes dropped at build because no output depends on them. */
  get pruned(): readonly string[] {
    return this.parts.plan.pruned;
  }
  /** Declared inputs: name -> dtype and shape. */
  get inputSpecs(): ReadonlyMap<string, TensorSpec> {
    return this.parts.inputs;
  }
  /** Declared outputs: name -> dtype and shape. */
  get outputSpecs(): ReadonlyMap<string, TensorSpec> {
    return this.parts.outputs;
  }

  /** Runs every node once; intermediates are freed after their last reader, outputs go to the caller. */
  async run(inputs: Readonly<Record<string, GraphInput>>, options: RunOptions = {}): Promise<GraphRun> {
    if (this.disposed) throw new GraphRunError(this.name, 'the graph was disposed');
    checkOptionKeys(`${this.name}.run.options`, options, RUN_OPTION_KEYS, { callOptions: false });
    if (options.replay !== undefined && typeof options.replay !== 'boolean')
      throw new InvalidArgumentError(`${this.name}.run.options.replay`, options.replay, 'must be true or false');
    const { engine, clock, plan } = this.parts;
    const strategyChoice = options.strategy ?? 'auto';
    const key = `${strategyName(strategyChoice)}|${options.cpuBackend ?? ''}|${options.gpuBackend ?? ''}`;
    const residency = options.replay === false ? '' : inputResidency(inputs, this.parts.inputs);
    const { recording, state } = this.recordings.before(key, residency, options.replay !== false);
    let replay = state;
    if (recording !== undefined) {
      try {
        return await this.replayRun(recording, inputs, strategyChoice);
      } catch (error) {
        if (error instanceof GraphRunError || callerError(error) !== undefined) throw error;
        replay = this.recordings.failed(key, recording, error);
      }
    }
    const started = clock();
    const placer = resolveStrategy(engine, strategyChoice, options);
    const live = new LiveSet();
    const values = this.bindInputs(inputs, live);
    const views = new Map<number, Tensor>();
    const records: NodeRecord[] = [];
    let placement: PlacementSummary | undefined;
    let followed: PlacementPlan | undefined; // the auto plan this run followed
    let replans = 0;
    try {
      const choosingFrom = clock();
      const planned = placer.kind === 'plan' ? this.plans.planFor(values) : undefined;
      let choosingMs = clock() - choosingFrom - (planned?.summary.planningMs ?? 0);
      // An auto candidate that puts every node on one backend is measured replayed, as it will run once chosen.
      const candidate = options.replay === false ? undefined : this.recordings.forCandidate(planned?.plan, residency);
      if (candidate !== undefined && planned?.plan !== undefined) {
        try {
          const summary = placementOf(planned.summary, 0, choosingMs, 0);
          const run = await this.replayRun(candidate, inputs, strategyChoice, summary);
          this.plans.recordRun(planned.plan, run.report.totalMs, true);
          // Chosen, not just measured: the next runs replay it without planning, as a settled plan's do.
          if (placementUnsettled(summary) === undefined) this.recordings.adopt(key, candidate);
          for (const id of [...live.tensors.keys()]) live.release(id);
          return run;
        } catch (error) {
          if (error instanceof GraphRunError || callerError(error) !== undefined) throw error;
          replay = this.recordings.failedCandidate(candidate, error);
        }
      }
      let current = planned?.plan;
      followed = planned?.plan;
      let fresh = planned?.summary.reused === false;
      let replanningMs = 0;
      let overrides = 0;
      for (let step = 0; step < plan.steps.length; step++) {
        const node = plan.steps[step];
        if (node === undefined) continue;
        const op = mapOpTensors(node.op, (t) => this.tensorOf(t, values, views));
        const t0 = clock();
        const decision = decideNode(
          placer,
          current,
          fresh && !this.plans.carriedReaders.has(step),
          step,
          op,
          this.stepNames,
        );
        const outs = await this.runNode(node.name, op, decision);
        const record = nodeRecord(
          node.name,
          node.op.op,
          latestCallEvents(engine, node.name),
          clock() - t0,
          decision.override,
        );
        records.push(record);
        if (decision.overridesEngine) overrides++;
        node.outputs.forEach((sym, i) => {
          const t = outs[i];
          if (t === undefined) throw new GraphRunError(node.name, `${node.op.op} returned ${outs.length} outputs`);
          values.set(sym.id, t);
          live.add(sym.id, t);
        });
        for (const id of plan.releaseAfter[step] ?? []) {
          live.release(id);
          values.delete(id);
        }
        if (decision.planned !== undefined && record.backend !== decision.planned && step + 1 < plan.steps.length) {
          // The engine explored, kept a backend by hysteresis or fell back: the rest of the plan assumed otherwise.
          // Plan the rest again once; if the engine departs again, let it place the remaining nodes itself.
          const again = replans === 0 ? this.plans.replanFrom(step + 1, values) : { plan: undefined, planningMs: 0 };
          current = again.plan;
          fresh = true;
          replanningMs += again.planningMs;
          replans++;
        }
      }
      // A run that followed its plan to the end measures that plan (against its alternatives: see node-decision.ts).
      const recordingFrom = clock();
      if (planned?.plan !== undefined)
        this.plans.recordRun(planned.plan, recordingFrom - started - planned.summary.planningMs, replans === 0);
      choosingMs += clock() - recordingFrom;
      if (planned !== undefined) placement = placementOf(planned.summary, replanningMs, choosingMs, overrides);
    } catch (error) {
      for (const id of [...live.tensors.keys()]) live.release(id);
      throw error;
    }
    const outputs = new Map<string, Tensor>();
    for (const [name, sym] of this.parts.outputs) {
      outputs.set(name, this.tensorOf(sym, values, views));
      live.handOver(sym.root);
    }
    const unsettled = placementUnsettled(placement) ?? (replans > 0 ? 'the run re-planned' : undefined);
    if (options.replay !== false && replans === 0 && followed !== undefined)
      this.recordings.afterCandidate(followed, records, (backend) =>
        recordPlan(engine, this.parts, { key: `candidate|${backend}`, backend, residency }),
      );
    if (options.replay !== false)
      replay = this.recordings.after(key, residency, records, unsettled, replay, (backend) =>
        recordPlan(engine, this.parts, { key, backend, residency }),
      );
    const leaked = [...live.tensors.keys()].filter((id) => !this.isInput(id)).length;
    for (const id of [...live.tensors.keys()]) live.release(id); // inputs uploaded here that no node read
    const report = runReportOf({
      graph: this.name,
      strategy: strategyName(strategyChoice),
      totalMs: clock() - started,
      nodes: records,
      live,
      leakedTensors: leaked,
      placement,
      replay,
    });
    return { outputs: new GraphOutputs(outputs), report };
  }

  /** One run as a replay of `recording` (engine.runSequence); throws what runSequence throws (run() then goes node by node). */
  private async replayRun(
    recording: Recording,
    inputs: Readonly<Record<string, GraphInput>>,
    strategyChoice: GraphStrategy,
    placement?: PlacementSummary,
  ): Promise<GraphRun> {
    const { engine, clock } = this.parts;
    const started = clock();
    const live = new LiveSet();
    const values = this.bindInputs(inputs, live);
    try {
      const tensors: Tensor[] = [];
      for (const sym of this.parts.inputs.values()) {
        const t = values.get(sym.id);
        if (t === undefined) throw new GraphRunError(sym.name, 'was not bound');
        tensors.push(t);
      }
      for (const c of recording.constants) if (c.source.kind === 'constant') tensors.push(c.source.tensor);
      const run = await engine.runSequence(recording.sequence, tensors, { backend: recording.backend });
      recording.replays++;
      const outputs = new Map<string, Tensor>();
      for (const [name, out] of recording.outputs) {
        const t = run.outputs[out.kept];
        if (t === undefined) throw new GraphRunError(name, 'the replay returned no tensor for it');
        outputs.set(name, sameShape(t.shape, out.shape) ? t : t.reshape(out.shape));
      }
      const records: NodeRecord[] = recording.nodes.map((n, i) => ({
        name: n.name,
        op: n.op,
        backend: recording.backend,
        reasonKind: 'replay',
        reason: 'replayed: a step of the recorded plan',
        attempts: 1,
        ms: run.stepMs[i] ?? 0,
        kernelMs: undefined,
        bytesMoved: i === 0 ? run.bytesMoved : 0,
        estimatedMs: 0,
        callId: -1,
      }));
      const report = runReportOf({
        graph: this.name,
        strategy: strategyName(strategyChoice),
        totalMs: clock() - started,
        nodes: records,
        live,
        leakedTensors: 0,
        placement,
        replay: { state: 'replayed', backendCalls: run.backendCalls },
      });
      return { outputs: new GraphOutputs(outputs), report };
    } finally {
      for (const id of [...live.tensors.keys()]) live.release(id);
    }
  }

  /** Frees the constants this graph uploaded itself (constants given as tensors stay with their owner). */
  dispose(): void {
    this.disposed = true;
    this.recordings.clear();
    for (const t of this.parts.ownedConstants) t.dispose();
    this.constantViews.clear();
  }

  /** Runs one node; a plan's override that fails is retried with the engine's own choice (and its fallbacks). */
  private async runNode(name: string, op: Op<Tensor>, decision: NodeDecision): Promise<Tensor[]> {
    try {
      return await this.parts.engine.run(op, { strategy: decision.strategy, label: name });
    } catch (error) {
      if (decision.override === undefined) throw new GraphRunError(name, error);
    }
    try {
      return await this.parts.engine.run(op, { strategy: 'auto', label: name });
    } catch (error) {
      throw new GraphRunError(name, error);
    }
  }

  private isInput(id: number): boolean {
    for (const sym of this.parts.inputs.values()) if (sym.id === id) return true;
    return false;
  }

  /** Checks the given inputs against the declared ones; uploads host data (owned by the run). */
  private bindInputs(given: Readonly<Record<string, GraphInput>>, live: LiveSet): Map<number, Tensor> {
    const { inputs: declared, engine } = this.parts;
    for (const name of Object.keys(given)) {
      if (!declared.has(name))
        throw new GraphRunError(
          `${this.name}.inputs.${name}`,
          `is not an input of this graph (inputs: ${[...declared.keys()].join(', ')})`,
        );
    }
    const values = new Map<number, Tensor>();
    try {
      for (const [name, sym] of declared) {
        const where = `${this.name}.inputs.${name}`;
        const value = given[name];
        if (value === undefined) throw new GraphRunError(where, `is missing (${sym.dtype} [${sym.shape.join(', ')}])`);
        if (value instanceof Tensor) {
          if (value.dtype !== sym.dtype || !sameShape(value.shape, sym.shape)) {
            throw new GraphRunError(
              where,
              `is ${value.dtype} [${value.shape.join(', ')}]; the graph was built for ${sym.dtype} [${sym.shape.join(', ')}]`,
            );
          }
          if (value.disposed) throw new GraphRunError(where, 'was disposed');
          try {
            engine.checkTensor(name, value);
          } catch (error) {
            throw new GraphRunError(where, error);
          }
          values.set(sym.id, value);
        } else {
          let t: Tensor;
          try {
            t = this.parts.engine.tensor(value, sym.shape, sym.dtype);
          } catch (error) {
            throw new GraphRunError(where, error);
          }
          values.set(sym.id, t);
          live.add(sym.id, t);
        }
      }
    } catch (error) {
      for (const id of [...live.tensors.keys()]) live.release(id);
      throw error;
    }
    return values;
  }

  /** The real tensor behind a symbolic one: an input, a constant, an op output, or a view of one (made here, free). */
  private tensorOf(sym: SymbolicTensor, values: ReadonlyMap<number, Tensor>, views: Map<number, Tensor>): Tensor {
    const source = sym.source;
    switch (source.kind) {
      case 'constant':
        return source.tensor;
      case 'input':
      case 'op': {
        const t = values.get(sym.id);
        if (t === undefined)
          throw new GraphRunError(sym.name, 'was freed before a reader ran (a bug in the buffer plan)');
        return t;
      }
      case 'view': {
        const fromConstant = this.isConstantRooted(sym);
        const cache = fromConstant ? this.constantViews : views;
        let t = cache.get(sym.id);
        if (t === undefined || t.disposed) {
          t = applyView(this.tensorOf(source.base, values, views), source.step);
          cache.set(sym.id, t);
        }
        return t;
      }
    }
  }

  private isConstantRooted(sym: SymbolicTensor): boolean {
    let t = sym;
    while (t.source.kind === 'view') t = t.source.base;
    return t.source.kind === 'constant';
  }
}

/** The run's placement summary: the plan's, with this run's replanning, choosing time and overrides (fields listed, not spread: this runs once per run, cold, and a spread had cost ~10 us). */
function placementOf(
  summary: Omit<PlacementSummary, 'overrides' | 'choosingMs'>,
  replanningMs: number,
  choosingMs: number,
  overrides: number,
): PlacementSummary {
  return {
    estimatedMs: summary.estimatedMs,
    greedyMs: summary.greedyMs,
    planningMs: summary.planningMs + replanningMs,
    choosingMs,
    explainCalls: summary.explainCalls,
    reused: summary.reused,
    overrides,
    chosenBy: summary.chosenBy,
    candidates: summary.candidates,
  };
}
