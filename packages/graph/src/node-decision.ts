// Per-run placement for the executor: the graph plan (made, or reused while the inputs live where they did) and,
// per node, the engine strategy that carries it out.
import { formatMs, opInputs, type Engine, type Op, type Strategy, type Tensor } from '@tandem/core';
import { backendBit, HOST_BIT, maskOf, type PlaceMask } from './phantom.ts';
import { planPlacement, segmentOf, type PlacementPlan } from './placement.ts';
import { rootOf, type ExecutionPlan } from './plan.ts';
import { splitStrategy, type NodePlacer } from './strategy.ts';
import { attachPlanProfile } from './plan-profile.ts';
import { SHARED_PLANS, type StructurePlans } from './shared-plans.ts';
import {
  assignmentKey,
  chooseCandidate,
  CLOSE_CALL,
  forgetEarlyCandidates,
  recordCandidateRun,
  refreshCandidates,
  type PlanChoice,
} from './plan-candidates.ts';

export type { PlanChoice } from './plan-candidates.ts';

/** How one node is run: the engine strategy, and the graph's reason when the plan placed the node itself. */
export interface NodeDecision {
  /** Strategy passed to engine.run for this node. */
  readonly strategy: Strategy;
  /** The graph's reason when the plan placed the node itself with `{ only }` (undefined: the engine decided). */
  readonly override: string | undefined;
  /** Whether the plan put the node elsewhere than the engine's cost alone would have. */
  readonly overridesEngine: boolean;
  /** The backend the plan wanted (undefined when there is no plan); a node that ran elsewhere makes the rest be replanned. */
  readonly planned: string | undefined;
}

/** What the report says about a run's plan. */
export interface PlacementSummary {
  /** The plan's estimated total, ms (sum of the engine's per-node estimates, transfers included). */
  readonly estimatedMs: number;
  /** The greedy per-op placement's estimated total, ms. */
  readonly greedyMs: number;
  /** Time spent planning in this run, ms (0 when a plan was reused). */
  readonly planningMs: number;
  /** Time spent finding the plan among the cached ones, choosing among its candidates and recording the run, ms (planning excluded). */
  readonly choosingMs: number;
  /** explain() calls made to plan (0 when reused). */
  readonly explainCalls: number;
  /** Whether the plan was reused from an earlier run. */
  readonly reused: boolean;
  /** Nodes run where the plan said rather than where the engine's cost alone would have put them. */
  readonly overrides: number;
  /** Why this run's plan: the search's estimate, a measurement being taken, or measured runs of each candidate. */
  readonly chosenBy: PlanChoice;
  /** Plans of this structure measured against each other (the searched one and its uniform alternatives). */
  readonly candidates: number;
}

/** Runs a plan is reused for before it is made again from what the cost model learned since. */
const PLAN_REUSE = 32;

/**
 * A plan remade into the same assignment as the one it replaces is reused twice as long as that one was, up to this
 * many runs: planning (about a millisecond for a decoder block) and the re-measurement of each candidate that comes
 * with it cost a few percent of a 1-3 ms run when paid every 32 runs.
 */
const MAX_PLAN_REUSE = 512;

/** Structures remembered per engine before the shared plans are forgotten. */
const MAX_SHARED_STRUCTURES = 64;

/**
 * When a remade plan differs from the one it replaces, candidates measured within this factor of the best get one
 * more run; slower ones keep their runs (re-measuring those cost a tenth of the graph suite's timed auto runs:
 * docs/decisions.md, issue 29). A candidate whose speed changed shows up as the best's own runs get slower.
 */
const REMEASURE_WITHIN = 1.25;

/**
 * At the first remake, candidates measured within this factor of the best are measured again from scratch: the first
 * rounds' measurements can rank two plans the wrong way round for good (docs/decisions.md, issue 29; graph-auto-probe).
 */
const REMEASURE_FIRST_WITHIN = 2;

/** Alternatives estimated within this factor of the searched plan are measured against it. */
const MEASURE_WITHIN = 2;

/** Residency keys remembered per structure (each its own plan) before they are forgotten. */
const MAX_KEYS_PER_STRUCTURE = 8;

/** Whether two plans (either possibly undefined) place every node alike. */
function sameAssignment(a: PlacementPlan | undefined, b: PlacementPlan | undefined): boolean {
  return a === undefined || b === undefined ? a === b : assignmentKey(a) === assignmentKey(b);
}

/** Makes and caches a graph's placement plan (shared with graphs of the same structure on the same engine). */
export class PlanCache {
  private readonly constantRoots: ReadonlyMap<number, Tensor>;
  /** Inputs declared carried (a KV cache): planned as resident everywhere, left out of the residency key. */
  private readonly carriedInputs: ReadonlySet<number>;
  /** Steps that read a carried input: they follow the plan even on the run that made it (see decideNode). */
  readonly carriedReaders: ReadonlySet<number>;
  private readonly engine: Engine;
  private readonly execution: ExecutionPlan;
  private readonly clock: () => number;
  /** Node names, ops and input shapes rounded up to powers of two: graphs alike in all of these share plans. */
  private readonly structure: string;

  constructor(engine: Engine, execution: ExecutionPlan, clock: () => number) {
    this.engine = engine;
    this.execution = execution;
    this.clock = clock;
    this.constantRoots = constantRootsOf(execution);
    this.carriedInputs = carriedInputsOf(execution);
    this.carriedReaders = new Set(
      execution.steps.flatMap((node, step) =>
        opInputs(node.op).some(({ tensor }) => this.carriedInputs.has(rootOf(tensor).id)) ? [step] : [],
      ),
    );
    this.structure = structureOf(execution);
    attachPlanProfile(engine);
  }

  /**
   * The plan for a run whose inputs are bound to `values`: reused while every input lives where it did when the
   * plan was made, for 32 runs, or up to 512 while remaking it keeps giving the same plan (the very first plan, made
   * on priors alone, for one run).
   */
  planFor(values: ReadonlyMap<number, Tensor>): {
    plan: PlacementPlan | undefined;
    summary: Omit<PlacementSummary, 'overrides' | 'choosingMs'>;
  } {
    const shared = this.sharedFor(values);
    const picked =
      shared.entry.plansMade > 1
        ? chooseCandidate(shared.entry, shared.plan, shared.remade)
        : { plan: shared.plan, chosenBy: 'estimate' as const, candidates: 1 };
    const plan = picked.plan;
    return {
      plan,
      summary: {
        estimatedMs: plan?.estimatedMs ?? 0,
        greedyMs: plan?.greedyMs ?? 0,
        planningMs: shared.planningMs,
        explainCalls: shared.made ? (plan?.explainCalls ?? 0) : 0,
        reused: !shared.made,
        chosenBy: picked.chosenBy,
        candidates: picked.candidates,
      },
    };
  }

  /**
   * Records the total time of a run of `plan` (from planFor), for the comparison of candidates (see
   * recordCandidateRun). Runs that departed from their plan (`followed` false) are not recorded (they measured
   * something else), and neither is the first run after a switch of plans.
   */
  recordRun(plan: PlacementPlan, totalMs: number, followed: boolean): void {
    const shared = SHARED_PLANS.get(this.engine)?.get(this.structure);
    if (shared !== undefined) recordCandidateRun(shared, followed ? assignmentKey(plan) : undefined, totalMs);
  }

  /** This run's plan: reused while its residency's plan has runs left, or made now (then `made` and the planning time). */
  private sharedFor(values: ReadonlyMap<number, Tensor>): {
    entry: StructurePlans;
    plan: PlacementPlan | undefined;
    made: boolean;
    remade: boolean;
    planningMs: number;
  } {
    let byStructure = SHARED_PLANS.get(this.engine);
    if (byStructure === undefined) {
      byStructure = new Map();
      SHARED_PLANS.set(this.engine, byStructure);
    }
    let entry = byStructure.get(this.structure);
    // Reuse is checked against the backends the plans were made with (a lost backend shows up as a departure, which
    // replans with a fresh list), so a reused plan costs a few residency lookups, not a backend survey.
    const oldKey = entry === undefined ? undefined : keyOf(values, entry.backends, this.carriedInputs);
    const keyed = oldKey === undefined ? undefined : entry?.byKey.get(oldKey);
    if (entry !== undefined && keyed !== undefined && keyed.runsLeft > 0) {
      keyed.runsLeft--;
      if (++entry.runsSinceRefresh >= PLAN_REUSE) {
        refreshCandidates(entry.measured, CLOSE_CALL);
        entry.runsSinceRefresh = 0;
        entry.settled = undefined;
      }
      return { entry, plan: keyed.plan, made: false, remade: keyed.remade, planningMs: 0 };
    }
    const started = this.clock();
    const backends = this.availableBackends();
    const plan = planPlacement({
      engine: this.engine,
      steps: this.execution.steps,
      initial: this.placesOf(values, backends),
      backends,
      alternativesWithin: MEASURE_WITHIN,
    });
    const planningMs = this.clock() - started;
    if (entry === undefined || entry.backends.join() !== backends.join()) {
      if (entry === undefined && byStructure.size >= MAX_SHARED_STRUCTURES) byStructure.clear();
      entry = {
        backends,
        byKey: new Map(),
        plansMade: entry?.plansMade ?? 0,
        measured: entry?.measured ?? new Map(),
        lastRun: undefined,
        runsSinceRefresh: 0,
        settled: undefined,
      };
      byStructure.set(this.structure, entry);
    }
    // A plan remade because its runs ran out drops the oldest measurement of the candidates in a close call, so each
    // gets one more run; of those within REMEASURE_WITHIN when the remade plan differs from the one it replaces (what
    // the cost model learned moved the search, so a candidate may have become faster or slower). Re-running every
    // candidate at each remake had cost a few percent of the runs between remakes, on plans measured clearly slower.
    // The first remake after the candidates were measured (plans 1 and 2 serve 1 and 32 runs) measures again, from
    // scratch, those within REMEASURE_FIRST_WITHIN of the best: their first runs came while the engine and the devices
    // were still warming up, and one more run at a time never moves a median of three that all came then.
    if (keyed !== undefined && entry.plansMade === 2) forgetEarlyCandidates(entry.measured, REMEASURE_FIRST_WITHIN);
    else if (keyed !== undefined)
      refreshCandidates(entry.measured, sameAssignment(keyed.plan, plan) ? CLOSE_CALL : REMEASURE_WITHIN);
    if (keyed !== undefined) entry.runsSinceRefresh = 0;
    entry.settled = undefined;
    if (entry.byKey.size >= MAX_KEYS_PER_STRUCTURE) entry.byKey.clear();
    // The first plan rests on priors alone and serves one run; later ones serve PLAN_REUSE runs, or twice as many as
    // the plan they replace when they came out the same.
    const reuse =
      entry.plansMade === 0
        ? 1
        : keyed !== undefined && sameAssignment(keyed.plan, plan)
          ? Math.min(Math.max(keyed.reuse * 2, PLAN_REUSE), MAX_PLAN_REUSE)
          : PLAN_REUSE;
    const remade = keyed !== undefined;
    entry.byKey.set(keyOf(values, backends, this.carriedInputs), { plan, runsLeft: reuse - 1, reuse, remade });
    entry.plansMade++;
    return { entry, plan, made: true, remade, planningMs };
  }

  /** A plan of steps `firstStep`.. from where the live values are now (after a node ran off-plan); never cached. */
  replanFrom(
    firstStep: number,
    values: ReadonlyMap<number, Tensor>,
  ): { plan: PlacementPlan | undefined; planningMs: number } {
    const started = this.clock();
    const backends = this.availableBackends();
    const plan = planPlacement({
      engine: this.engine,
      steps: this.execution.steps.slice(firstStep),
      firstStep,
      initial: this.placesOf(values, backends),
      backends,
    });
    return { plan, planningMs: this.clock() - started };
  }

  private availableBackends(): string[] {
    return this.engine
      .backends()
      .filter((b) => b.available)
      .map((b) => b.name);
  }

  /**
   * Where every bound value (inputs, live intermediates) lives now. Weights and carried inputs (a KV cache) count as
   * resident everywhere: moving one is paid once and then serves every later run, so a plan charged for it would keep
   * it on the backend it happened to land on first (greedy's trap) instead of where the steady state is fastest. (A
   * decode after a prefill on the GPU had kept attention on the GPU to spare the cache's move, and every later step
   * ran split across both backends: slower than either alone.)
   */
  private placesOf(values: ReadonlyMap<number, Tensor>, backends: readonly string[]): Map<number, PlaceMask> {
    const places = new Map<number, PlaceMask>();
    for (const [id, t] of values) places.set(id, maskOf(t, backends));
    const everywhere = backends.reduce((mask, _, i) => mask | backendBit(i), HOST_BIT);
    for (const id of this.constantRoots.keys()) places.set(id, everywhere);
    for (const id of this.carriedInputs) places.set(id, everywhere);
    return places;
  }
}

/**
 * The strategy for step `step` under `placer`. Under a plan:
 * - a node the plan places elsewhere than the engine's cost alone would runs with `{ only }` and the graph's reason;
 * - on a run that made its plan (`fresh`), every other node runs with 'auto': the engine decides again, explores
 *   backends it has not measured for a while, and records its own reason (the executor passes fresh = false for
 *   nodes that read a carried input: the engine alone would charge that input's one-time move to this call, and
 *   send the node to wherever the state happens to be, as the plan deliberately did not);
 * - on runs that reuse a plan, those nodes run with `{ only }` too: the plan already holds the engine's decision for
 *   them, and asking again per node costs more than a small node's kernel (exploration waits for the next plan).
 * A node that fails under `{ only }` is retried with 'auto' by the executor.
 */
export function decideNode(
  placer: NodePlacer,
  plan: PlacementPlan | undefined,
  fresh: boolean,
  step: number,
  op: Op<Tensor>,
  names: readonly string[],
): NodeDecision {
  if (placer.kind === 'engine')
    return { strategy: placer.strategy, override: undefined, overridesEngine: false, planned: undefined };
  if (placer.kind === 'split')
    return { strategy: splitStrategy(placer, op.op), override: undefined, overridesEngine: false, planned: undefined };
  const planned = plan?.nodes[step - plan.firstStep];
  if (plan === undefined || planned === undefined)
    return { strategy: 'auto', override: undefined, overridesEngine: false, planned: undefined };
  const agrees = planned.engineAlone === planned.backend;
  if (agrees && fresh)
    return { strategy: 'auto', override: undefined, overridesEngine: false, planned: planned.backend };
  // A reused plan gives every run the same decisions: made (reason text included) once per plan and step.
  let decisions = PLANNED_DECISIONS.get(plan);
  if (decisions === undefined) {
    decisions = [];
    PLANNED_DECISIONS.set(plan, decisions);
  }
  const index = step - plan.firstStep;
  const made = decisions[index] ?? plannedDecision(plan, step, names);
  decisions[index] = made;
  return made;
}

/** Each plan's `{ only }` decisions by step (less firstStep), made on first use. */
const PLANNED_DECISIONS = new WeakMap<PlacementPlan, NodeDecision[]>();

/** The decision that follows `plan` at `step` with `{ only }`, and the plan's reason. */
function plannedDecision(plan: PlacementPlan, step: number, names: readonly string[]): NodeDecision {
  const planned = plan.nodes[step - plan.firstStep];
  if (planned === undefined)
    throw new RangeError(
      `step ${step} is outside the plan (${plan.firstStep}..${plan.firstStep + plan.nodes.length - 1})`,
    );
  const agrees = planned.engineAlone === planned.backend;
  const { first, last } = segmentOf(plan, step);
  const run = first === last ? (names[first] ?? '') : `${names[first] ?? ''} .. ${names[last] ?? ''}`;
  const why = agrees
    ? `as the engine's cost alone would (estimate ${formatMs(planned.estimatedMs)})`
    : `engine alone: ${planned.engineAlone}`;
  return {
    strategy: { only: planned.backend },
    planned: planned.backend,
    overridesEngine: !agrees,
    override: `graph plan: ${run} on ${planned.backend} (${why}); plan ${formatMs(plan.estimatedMs)} vs ${formatMs(plan.greedyMs)} placing each node alone`,
  };
}

/** Constant roots (weights) the steps read: root id -> tensor. */
function constantRootsOf(execution: ExecutionPlan): Map<number, Tensor> {
  const found = new Map<number, Tensor>();
  for (const node of execution.steps) {
    for (const { tensor } of opInputs(node.op)) {
      const root = rootOf(tensor);
      if (root.source.kind === 'constant') found.set(root.id, root.source.tensor);
    }
  }
  return found;
}

/** Inputs the steps read (through views or not) that were declared carried. */
function carriedInputsOf(execution: ExecutionPlan): Set<number> {
  const found = new Set<number>();
  for (const node of execution.steps) {
    for (const { tensor } of opInputs(node.op)) {
      const root = rootOf(tensor);
      if (root.source.kind === 'input' && root.source.carried) found.add(root.id);
    }
  }
  return found;
}

/** A graph's structure: node names, ops, and input dtypes and shapes rounded up to powers of two. */
function structureOf(execution: ExecutionPlan): string {
  return execution.steps
    .map((node) => {
      const inputs = opInputs(node.op).map(
        ({ tensor }) =>
          `${tensor.dtype}[${tensor.shape.map((d) => (d <= 1 ? d : 2 ** Math.ceil(Math.log2(d)))).join('x')}]`,
      );
      return `${node.name}:${node.op.op}(${inputs.join(',')})`;
    })
    .join(';');
}

/** Where the bound values live, as one string (masks over `backends`, in binding order), carried inputs left out. */
function keyOf(values: ReadonlyMap<number, Tensor>, backends: readonly string[], carried: ReadonlySet<number>): string {
  let key = '';
  for (const [id, t] of values) key += carried.has(id) ? '*,' : `${maskOf(t, backends)},`;
  return key;
}
