// Placement of a whole graph for 'auto': one backend per node, chosen for the run of nodes rather than greedily.
//
// The engine's scheduler prices one op at a time: learned compute time plus moving the inputs that are not
// resident on a backend. Greedy per-op choice misses the way back: a CPU op between two GPU ops moves its input
// down AND its output up again. Here every node is priced by the engine itself (explain() on
// phantom inputs placed where a candidate plan would leave them), so the plan's total is the sum of exactly
// what the engine would charge node by node, transfers included, in execution order. The search:
//  1. starts from the greedy per-op plan and from "everything on backend B" for each backend;
//  2. repeatedly moves the single cheapest-improving segment (a maximal run of nodes on one backend, or one
//     node) to another backend, until nothing improves.
// On request (`alternativesWithin`), the uniform plans of step 1 that the search moved away from, estimated within
// that factor of the chosen plan, come with it as `alternatives`: the estimate leaves out what a switch between
// backends costs beyond the copy (a GPU queue drained before a CPU node can read its input), so the executor
// measures the chosen plan against them (node-decision.ts) and keeps the faster.
// One explain() with 'auto' prices a node on every backend it considers; prices are memoised per (node, where its
// inputs live), so a plan costs about one to two explain() calls per node.
import { opInputs, mapOpTensors, type Engine, type Op, type Tensor } from '@tandem/core';
import { backendBit, HOST_BIT, phantomTensor, type PlaceMask } from './phantom.ts';
import { rootOf, type GraphNode } from './plan.ts';
import type { SymbolicTensor } from './symbolic.ts';
import { applyView } from './views.ts';

/** Where one node runs under a plan. */
export interface NodePlacement {
  /** Backend the plan puts the node on. */
  readonly backend: string;
  /** The node's price under the plan: compute plus moving its inputs there, ms (the engine's estimate). */
  readonly estimatedMs: number;
  /** Backend the engine's cost alone would pick for it at that point of the plan (where its inputs then live). */
  readonly engineAlone: string;
}

/** A placement of every step of a graph. */
export interface PlacementPlan {
  /** Per step, in execution order. */
  readonly nodes: readonly NodePlacement[];
  /** Sum of the nodes' prices under this plan, ms. */
  readonly estimatedMs: number;
  /** Sum under the greedy per-op placement, ms (>= estimatedMs). */
  readonly greedyMs: number;
  /** explain() calls the plan cost. */
  readonly explainCalls: number;
  /** Index in the graph's steps of nodes[0] (a plan of the rest of a run, made after a deviation, starts later). */
  readonly firstStep: number;
  /** The uniform plans ("every node on B where B can run it") asked for by `alternativesWithin`, cheapest first (empty in those). */
  readonly alternatives: readonly PlacementPlan[];
}

/** What the planner needs: the engine, the steps, and where each input and constant lives now. */
export interface PlacementRequest {
  /** Engine whose scheduler prices the nodes. */
  readonly engine: Engine;
  /** Steps to place, in execution order. */
  readonly steps: readonly GraphNode[];
  /** Index of steps[0] in the graph (default 0). */
  readonly firstStep?: number;
  /** Root value id -> where it lives at the start of the run (inputs and constants). */
  readonly initial: ReadonlyMap<number, PlaceMask>;
  /** Names of the available backends; a PlaceMask's bits follow this order. */
  readonly backends: readonly string[];
  /** Return the uniform plans estimated within this factor of the chosen one as `alternatives` (default: none). */
  readonly alternativesWithin?: number;
}

/** Most improving moves taken by the local search (each strictly lowers the total). */
const MAX_MOVES = 64;

/** The plan for a graph; undefined when some node has no usable backend (the executor then lets the engine decide). */
export function planPlacement(request: PlacementRequest): PlacementPlan | undefined {
  const pricing = new Pricing(request);
  const { greedy, candidates } = pricing.greedy();
  if (candidates.some((c) => c.length === 0)) return undefined;
  let best = pricing.evaluate(greedy);
  const greedyMs = best.total;
  const uniforms: Priced[] = [];
  for (const backend of request.backends) {
    const uniform = candidates.map((c, step) => (c.includes(backend) ? backend : (greedy[step] ?? backend)));
    const priced = pricing.evaluate(uniform);
    if (!uniforms.some((u) => sameAssignment(u.assignment, uniform))) uniforms.push(priced);
    if (priced.total < best.total) best = priced;
  }
  for (let move = 0; move < MAX_MOVES; move++) {
    const better = bestMove(pricing, candidates, best);
    if (better === undefined) break;
    best = better;
  }
  const chosen = best;
  const within = request.alternativesWithin ?? 0;
  const alternatives = uniforms
    .filter((u) => u.total <= chosen.total * within && !sameAssignment(u.assignment, chosen.assignment))
    .sort((a, b) => a.total - b.total)
    .map((u) => toPlan(pricing, candidates, u, greedyMs, request.firstStep ?? 0, []));
  return toPlan(pricing, candidates, chosen, greedyMs, request.firstStep ?? 0, alternatives);
}

function toPlan(
  pricing: Pricing,
  candidates: readonly (readonly string[])[],
  priced: Priced,
  greedyMs: number,
  firstStep: number,
  alternatives: readonly PlacementPlan[],
): PlacementPlan {
  const alone = pricing.cheapestAlong(priced.assignment, candidates);
  return {
    nodes: priced.assignment.map((backend, step) => ({
      backend,
      estimatedMs: priced.prices[step] ?? 0,
      engineAlone: alone[step] ?? backend,
    })),
    estimatedMs: priced.total,
    greedyMs,
    explainCalls: pricing.explainCalls,
    firstStep,
    alternatives,
  };
}

function sameAssignment(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((backend, i) => backend === b[i]);
}

/** The engine's estimated total for an arbitrary assignment (one backend per step), e.g. to compare with a plan. */
export function priceAssignment(request: PlacementRequest, assignment: readonly string[]): number {
  return new Pricing(request).evaluate(assignment).total;
}

/** The graph step indices of the first and last node of the segment (same-backend run) holding graph step `step`. */
export function segmentOf(plan: PlacementPlan, step: number): { first: number; last: number } {
  const at = step - plan.firstStep;
  const backend = plan.nodes[at]?.backend;
  let first = at;
  let last = at;
  while (first > 0 && plan.nodes[first - 1]?.backend === backend) first--;
  while (last < plan.nodes.length - 1 && plan.nodes[last + 1]?.backend === backend) last++;
  return { first: first + plan.firstStep, last: last + plan.firstStep };
}

interface Priced {
  readonly assignment: readonly string[];
  readonly prices: readonly number[];
  readonly total: number;
}

/** The cheapest strictly-improving move of one segment or one node to another backend, applied; undefined if none. */
function bestMove(pricing: Pricing, candidates: readonly (readonly string[])[], current: Priced): Priced | undefined {
  let best: Priced | undefined;
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < current.assignment.length; ) {
    let end = start;
    while (end + 1 < current.assignment.length && current.assignment[end + 1] === current.assignment[start]) end++;
    ranges.push([start, end]);
    if (end > start) for (let s = start; s <= end; s++) ranges.push([s, s]);
    start = end + 1;
  }
  for (const [first, last] of ranges) {
    const from = current.assignment[first];
    for (const to of candidates[first] ?? []) {
      if (to === from) continue;
      let allowed = true;
      for (let s = first; s <= last && allowed; s++) allowed = (candidates[s] ?? []).includes(to);
      if (!allowed) continue;
      const trial = current.assignment.map((b, s) => (s >= first && s <= last ? to : b));
      const priced = pricing.evaluate(trial);
      if (priced.total < (best ?? current).total - 1e-9 * Math.max(1, current.total)) best = priced;
    }
  }
  return best;
}

/** Prices nodes through the engine's explain(), memoised by (node, backend, input residency). */
class Pricing {
  explainCalls = 0;
  private readonly request: PlacementRequest;
  private readonly memo = new Map<number, Readonly<Record<string, number>>>();
  private readonly index: ReadonlyMap<string, number>;

  constructor(request: PlacementRequest) {
    this.request = request;
    this.index = new Map(request.backends.map((b, i) => [b, i]));
  }

  /**
   * Each node on its cheapest backend given where the earlier choices left its inputs, and each node's candidates:
   * the backends the engine considers for it (capable, healthy, not a last resort when others exist).
   */
  greedy(): { greedy: string[]; candidates: string[][] } {
    const places = new Map(this.request.initial);
    const candidates: string[][] = [];
    const greedy = this.request.steps.map((node, step) => {
      const costs = this.costs(step, this.inputMasks(node, places));
      let chosen = '';
      let cheapest = Infinity;
      const usable: string[] = [];
      for (const backend of this.request.backends) {
        const ms = costs[backend];
        if (ms === undefined || !Number.isFinite(ms)) continue;
        usable.push(backend);
        if (ms < cheapest) [chosen, cheapest] = [backend, ms];
      }
      candidates.push(usable);
      this.advance(node, chosen, places);
      return chosen;
    });
    return { greedy, candidates };
  }

  /** Per step, the cheapest candidate given where `assignment`'s earlier steps left its inputs. */
  cheapestAlong(assignment: readonly string[], candidates: readonly (readonly string[])[]): string[] {
    const places = new Map(this.request.initial);
    return this.request.steps.map((node, step) => {
      const masks = this.inputMasks(node, places);
      const backend = assignment[step] ?? '';
      let chosen = backend;
      let cheapest = this.price(step, backend, masks);
      for (const other of candidates[step] ?? []) {
        const ms = this.price(step, other, masks);
        if (ms < cheapest) [chosen, cheapest] = [other, ms];
      }
      this.advance(node, backend, places);
      return chosen;
    });
  }

  /** Total price of an assignment, walking the steps in order and tracking where every value lives. */
  evaluate(assignment: readonly string[]): Priced {
    const places = new Map(this.request.initial);
    const prices: number[] = [];
    let total = 0;
    this.request.steps.forEach((node, step) => {
      const backend = assignment[step] ?? '';
      const ms = this.price(step, backend, this.inputMasks(node, places));
      prices.push(ms);
      total += ms;
      this.advance(node, backend, places);
    });
    return { assignment, prices, total };
  }

  private inputMasks(node: GraphNode, places: ReadonlyMap<number, PlaceMask>): PlaceMask[] {
    return opInputs(node.op).map(({ tensor }) => places.get(rootOf(tensor).id) ?? HOST_BIT);
  }

  /** After `node` runs on `backend`: its inputs gained a copy there (and on the host, if they came down), its outputs live there. */
  private advance(node: GraphNode, backend: string, places: Map<number, PlaceMask>): void {
    const bit = backendBit(this.index.get(backend) ?? 0);
    for (const { tensor } of opInputs(node.op)) {
      const root = rootOf(tensor).id;
      const mask = places.get(root) ?? HOST_BIT;
      if ((mask & bit) === 0) places.set(root, mask | bit | HOST_BIT);
    }
    for (const out of node.outputs) places.set(out.id, bit);
  }

  /** The engine's estimate for `step` on `backend` with inputs placed per `masks` (Infinity when it can't run there). */
  private price(step: number, backend: string, masks: readonly PlaceMask[]): number {
    return this.costs(step, masks)[backend] ?? Infinity;
  }

  /**
   * The engine's estimates for `step` on every backend it considers, inputs placed per `masks`: one explain() with
   * 'auto' prices them all (compute + moving the inputs that are not there), exactly as run() would.
   */
  private costs(step: number, masks: readonly PlaceMask[]): Readonly<Record<string, number>> {
    let key = step;
    for (const mask of masks) key = key * 1024 + mask; // masks < 1024 (up to 9 backends); <= 4 inputs stays < 2^53
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const node = this.request.steps[step];
    let costs: Readonly<Record<string, number>> = {};
    if (node !== undefined) {
      try {
        this.explainCalls++;
        costs = this.request.engine.explain(this.phantomOp(node.op, masks), { strategy: 'auto' }).costsMs;
      } catch {
        costs = {};
      }
    }
    this.memo.set(key, costs);
    return costs;
  }

  /** The node's op over phantom inputs, input i placed per masks[i] (views replayed on the phantom root). */
  private phantomOp(op: Op<SymbolicTensor>, masks: readonly PlaceMask[]): Op<Tensor> {
    let i = 0;
    return mapOpTensors(op, (sym) => this.phantomOf(sym, masks[i++] ?? HOST_BIT));
  }

  private phantomOf(sym: SymbolicTensor, mask: PlaceMask): Tensor {
    if (sym.source.kind === 'view') return applyView(this.phantomOf(sym.source.base, mask), sym.source.step);
    return phantomTensor(sym.dtype, sym.shape, mask, this.request.backends);
  }
}
