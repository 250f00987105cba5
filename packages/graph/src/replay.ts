// Graph replay (issue 28): once SETTLE_RUNS runs in a row under one strategy ran every node on the same backend, at
// the first attempt, the executor records the plan as a sequence (engine.recordSequence) and the next runs replay it
// (engine.runSequence): the same kernels on the same backend, with no decision, validation or learning per node.
// Every RECHECK_EVERY replays one run goes node by node again, so the engine keeps measuring and `auto` can move
// the graph; a run that then departs from the recording drops it. A replay that fails drops the recording and the
// run goes node by node (the engine's fallbacks apply); the run report says which of these happened and why.
import type { Engine, Op, OpKind, RecordedSequence, SequenceSpec, SequenceTensor } from '@tandem/core';
import { mapOpTensors, Tensor } from '@tandem/core';
import type { GraphInput } from './graph.ts';
import type { PlacementSummary } from './node-decision.ts';
import type { PlacementPlan } from './placement.ts';
import type { ExecutionPlan } from './plan.ts';
import type { NodeRecord } from './report.ts';
import type { SymbolicTensor } from './symbolic.ts';

/** Runs in a row on one backend before a plan is recorded. */
export const SETTLE_RUNS = 2;
/** Replays between two runs that go node by node (the engine measures and may re-place the graph there). */
export const RECHECK_EVERY = 50;

/** What happened to replay in one run. */
export interface ReplayState {
  /**
   * 'replayed': the run was the recording's; 'recorded': this run's placement was recorded for the next runs;
   * 'node-by-node': no recording applies (see `reason`); 'recheck': a periodic run node by node; 'dropped': a
   * recording was dropped in this run (see `reason`; the run went node by node).
   */
  readonly state: 'replayed' | 'recorded' | 'node-by-node' | 'recheck' | 'dropped';
  /** Why, for 'node-by-node' and 'dropped'. */
  readonly reason?: string;
  /** For 'replayed': calls into the backend (1 where it runs a whole plan at once, else one per node). */
  readonly backendCalls?: number;
}

/** The graph's parts a recording is made from. */
export interface ReplaySource {
  /** Declared inputs, in order. */
  readonly inputs: ReadonlyMap<string, SymbolicTensor>;
  /** Declared outputs. */
  readonly outputs: ReadonlyMap<string, SymbolicTensor>;
  /** The execution plan. */
  readonly plan: ExecutionPlan;
}

/** A recorded plan and how to feed it. */
export interface Recording {
  /** The strategy key it was recorded under. */
  readonly key: string;
  /** The backend every node ran on. */
  readonly backend: string;
  /** Where the graph's inputs lived when it was recorded (a run whose inputs live elsewhere is planned again). */
  residency: string;
  /** The checked sequence. */
  readonly sequence: RecordedSequence;
  /** The sequence's inputs after the graph's declared inputs: the constants' tensors, in order. */
  readonly constants: readonly SymbolicTensor[];
  /** Per graph output: its position in the sequence's kept values, and the reshape it is read with (if any). */
  readonly outputs: ReadonlyMap<string, { readonly kept: number; readonly shape: readonly number[] }>;
  /** Per step: node name and op (for the run report). */
  readonly nodes: readonly { readonly name: string; readonly op: OpKind }[];
  /** Replays since the recording was made or last rechecked. */
  replays: number;
}

/** The root of a symbolic tensor through reshape views; undefined when another view (permute, slice) is in the way. */
function reshapeRoot(t: SymbolicTensor): SymbolicTensor | undefined {
  let root = t;
  while (root.source.kind === 'view') {
    if (root.source.step.kind !== 'reshape') return undefined;
    root = root.source.base;
  }
  return root;
}

/** Records `source`'s plan as a sequence; a string says why it cannot be (a view other than reshape, say). */
export function recordPlan(
  engine: Engine,
  source: ReplaySource,
  made: { readonly key: string; readonly backend: string; readonly residency: string },
): Recording | string {
  const index = new Map<number, number>(); // root id -> value index
  const inputs: SequenceSpec['inputs'][number][] = [];
  for (const sym of source.inputs.values()) {
    index.set(sym.id, inputs.length);
    inputs.push({ dtype: sym.dtype, shape: sym.shape });
  }
  const constants: SymbolicTensor[] = [];
  for (const node of source.plan.steps) {
    for (const t of [...collect(node.op)]) {
      const root = reshapeRoot(t);
      if (root === undefined) return `${node.name} reads a permuted or sliced view`;
      if (root.source.kind === 'constant' && !index.has(root.id)) {
        if (!root.source.tensor.isContiguous) return `${root.name} is a non-contiguous constant`;
        index.set(root.id, inputs.length);
        inputs.push({ dtype: root.dtype, shape: root.shape });
        constants.push(root);
      }
    }
  }
  let next = inputs.length;
  const steps: SequenceSpec['steps'][number][] = [];
  for (const [s, node] of source.plan.steps.entries()) {
    const op = mapOpTensors(node.op, (t): SequenceTensor => {
      const root = reshapeRoot(t);
      const value = root === undefined ? undefined : index.get(root.id);
      return { value: value ?? -1, shape: t.shape };
    });
    for (const out of node.outputs) index.set(out.id, next++);
    const release = (source.plan.releaseAfter[s] ?? []).flatMap((id) => {
      const value = index.get(id);
      return value === undefined ? [] : [value];
    });
    steps.push({ label: node.name, op, release });
  }
  const keep: number[] = [];
  const outputs = new Map<string, { kept: number; shape: readonly number[] }>();
  for (const [name, sym] of source.outputs) {
    const root = reshapeRoot(sym);
    const value = root === undefined ? undefined : index.get(root.id);
    if (root === undefined || value === undefined || root.source.kind !== 'op')
      return `output ${name} is not an op's output (or reads a permuted or sliced view)`;
    let kept = keep.indexOf(value);
    if (kept < 0) kept = keep.push(value) - 1;
    outputs.set(name, { kept, shape: sym.shape });
  }
  const sequence = engine.recordSequence({ inputs, steps, keep });
  const nodes = source.plan.steps.map((n) => ({ name: n.name, op: n.op.op }));
  return { ...made, sequence, constants, outputs, nodes, replays: 0 };
}

/** The tensors an op reads, once each. */
function collect(op: Op<SymbolicTensor>): Set<SymbolicTensor> {
  const seen = new Set<SymbolicTensor>();
  mapOpTensors(op, (t) => {
    seen.add(t);
    return t;
  });
  return seen;
}

/** The one backend every node of a run used at its first attempt, or why there is none. */
export function settledBackend(nodes: readonly NodeRecord[]): { backend: string } | { why: string } {
  const first = nodes[0];
  if (first === undefined) return { why: 'the graph has no node' };
  for (const n of nodes) {
    if (n.attempts !== 1) return { why: `${n.name} fell back (${n.attempts} attempts)` };
    if (n.backend !== first.backend) return { why: `nodes ran on ${first.backend} and ${n.backend}` };
  }
  return { backend: first.backend };
}

/** The backend a placement plan puts every node on, or undefined when it uses several. */
export function uniformBackend(plan: PlacementPlan): string | undefined {
  const first = plan.nodes[0]?.backend;
  return first !== undefined && plan.firstStep === 0 && plan.nodes.every((n) => n.backend === first)
    ? first
    : undefined;
}

/**
 * A graph's recorded plans by strategy key, and the runs settling towards one; and, for 'auto', the recordings of
 * its candidate plans that put every node on one backend, so that a candidate is measured as it will run: replayed
 * (one backend call on the GPU is several times faster than the same plan node by node, which would otherwise lose
 * to a CPU plan that replays less well).
 */
export class Recordings {
  private readonly byKey = new Map<string, Recording>();
  /** Per backend: the recording of the auto candidate that puts every node there. */
  private readonly byCandidate = new Map<string, Recording>();
  /** Per backend: auto runs node by node that followed such a candidate there, until it is recorded. */
  private readonly candidateRuns = new Map<string, number>();
  /** Per strategy key: the backend the latest runs settled on, and how many in a row. */
  private readonly settling = new Map<string, { backend: string; runs: number }>();
  /** Why the plan cannot be recorded (a permuted view, say): found once. */
  private unrecordable: string | undefined;

  /** Before a run: the recording to replay, or the state of a run that goes node by node for a known reason. */
  before(key: string, residency: string, allowed: boolean): { recording?: Recording; state?: ReplayState } {
    if (!allowed) return { state: { state: 'node-by-node', reason: 'replay is off for this run' } };
    const recording = this.byKey.get(key);
    if (recording === undefined) return {};
    // An input lives elsewhere than when the plan was recorded: the planner decides this run.
    if (recording.residency !== residency)
      return { state: { state: 'node-by-node', reason: 'an input lives elsewhere than when the plan was recorded' } };
    if (recording.replays < RECHECK_EVERY) return { recording };
    recording.replays = 0;
    return { state: { state: 'recheck' } };
  }

  /** A replay failed: its recording is dropped (the run goes node by node). */
  failed(key: string, recording: Recording, error: unknown): ReplayState {
    this.byKey.delete(key);
    this.settling.delete(key);
    return { state: 'dropped', reason: `the replay on ${recording.backend} failed: ${String(error)}` };
  }

  /**
   * After a run node by node: keeps a recording the run followed (a recheck, or inputs that moved but were placed
   * the same way), drops one it departed from, and records the plan (`record`) once SETTLE_RUNS runs in a row under
   * this key ran every node on one backend. `unsettled` says why the run's placement cannot count (auto measuring).
   */
  after(
    key: string,
    residency: string,
    records: readonly NodeRecord[],
    unsettled: string | undefined,
    before: ReplayState | undefined,
    record: (backend: string) => Recording | string,
  ): ReplayState {
    const settled = unsettled !== undefined ? { why: unsettled } : settledBackend(records);
    const recording = this.byKey.get(key);
    if (recording !== undefined) {
      if ('backend' in settled && settled.backend === recording.backend) {
        recording.residency = residency; // placed the same way with the inputs where they are now
        return before ?? { state: 'recheck' };
      }
      this.byKey.delete(key);
      this.settling.delete(key);
      const how = 'why' in settled ? settled.why : `on ${settled.backend}`;
      return { state: 'dropped', reason: `a run node by node placed it otherwise: ${how}` };
    }
    if (!('backend' in settled)) {
      this.settling.delete(key);
      return before ?? { state: 'node-by-node', reason: settled.why };
    }
    const previous = this.settling.get(key);
    const runs = previous?.backend === settled.backend ? previous.runs + 1 : 1;
    this.settling.set(key, { backend: settled.backend, runs });
    if (this.unrecordable !== undefined) return before ?? { state: 'node-by-node', reason: this.unrecordable };
    if (runs < SETTLE_RUNS)
      return (
        before ?? { state: 'node-by-node', reason: `${runs} of ${SETTLE_RUNS} runs settled on ${settled.backend}` }
      );
    let made: Recording | string;
    try {
      made = record(settled.backend);
    } catch (error) {
      made = `recording failed: ${String(error)}`;
    }
    if (typeof made === 'string') {
      this.unrecordable = made;
      return before ?? { state: 'node-by-node', reason: made };
    }
    this.byKey.set(key, made);
    return before ?? { state: 'recorded' };
  }

  /** An auto candidate plan's recording, when the plan puts every node on one backend, one was made and the inputs live where they did. */
  forCandidate(plan: PlacementPlan | undefined, residency: string): Recording | undefined {
    const backend = plan === undefined ? undefined : uniformBackend(plan);
    const recording = backend === undefined ? undefined : this.byCandidate.get(backend);
    return recording?.residency === residency ? recording : undefined;
  }

  /**
   * After an auto run of `plan` node by node: records it when it puts every node on one backend and SETTLE_RUNS such
   * runs did.
   */
  afterCandidate(
    plan: PlacementPlan,
    records: readonly NodeRecord[],
    record: (backend: string) => Recording | string,
  ): void {
    const backend = uniformBackend(plan);
    if (backend === undefined || this.byCandidate.has(backend) || this.unrecordable !== undefined) return;
    const settled = settledBackend(records);
    if (!('backend' in settled) || settled.backend !== backend) return;
    // Recorded on its second such run: a graph run once (each step of a decode loop whose cache grows is a new
    // graph) never pays for a recording it would not use.
    const runs = (this.candidateRuns.get(backend) ?? 0) + 1;
    this.candidateRuns.set(backend, runs);
    if (runs < SETTLE_RUNS) return;
    let made: Recording | string;
    try {
      made = record(backend);
    } catch (error) {
      made = `recording failed: ${String(error)}`;
    }
    if (typeof made === 'string') this.unrecordable = made;
    else this.byCandidate.set(backend, made);
  }

  /** Auto chose a candidate whose recording it replayed: the runs under `key` replay it from now on. */
  adopt(key: string, recording: Recording): void {
    this.byKey.set(key, { ...recording, key, replays: 0 });
    this.settling.delete(key);
  }

  /** A candidate's replay failed: its recording is dropped (the run goes node by node). */
  failedCandidate(recording: Recording, error: unknown): ReplayState {
    this.byCandidate.delete(recording.backend);
    this.candidateRuns.delete(recording.backend);
    return { state: 'dropped', reason: `the replay of the candidate on ${recording.backend} failed: ${String(error)}` };
  }

  /** Forgets every recording (the graph was disposed). */
  clear(): void {
    this.byKey.clear();
    this.byCandidate.clear();
    this.candidateRuns.clear();
    this.settling.clear();
  }
}

/** Where each declared input lives at the start of a run ('host' for host data), as one string. */
export function inputResidency(
  given: Readonly<Record<string, GraphInput>>,
  declared: ReadonlyMap<string, SymbolicTensor>,
): string {
  let text = '';
  for (const name of declared.keys()) {
    const value = given[name];
    text += value instanceof Tensor ? `${value.residency().join(',')};` : 'host;';
  }
  return text;
}

/** Why an 'auto' run's placement is not settled yet (a fresh plan, or candidates still measured); undefined when it is. */
export function placementUnsettled(placement: PlacementSummary | undefined): string | undefined {
  if (placement === undefined) return undefined;
  if (!placement.reused) return 'the placement plan was just made';
  if (placement.chosenBy === 'measuring') return 'the placement candidates are still being measured';
  return undefined;
}
