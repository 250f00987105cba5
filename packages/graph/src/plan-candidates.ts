// The executor's choice among a placement plan and its alternatives: each candidate's recent measured run times,
// which candidate the next run uses (measure each a few times, more in a close call, then keep the fastest), and
// when candidates are measured again. pickCandidate runs once per graph run, so it reads each candidate's median and
// scatter as kept by CandidateRuns instead of sorting every candidate's runs again (a few percent of a decode step:
// docs/decisions.md, issue 29).
import { median } from '@tandem/core';
import type { PlacementPlan } from './placement.ts';

/** How a run's plan was chosen among the candidates (PlacementPlan and its alternatives). */
export type PlanChoice = 'estimate' | 'measuring' | 'measured';

/** Measured runs of a candidate plan before the candidates are compared (the median drops a run's outlier). */
export const RUNS_PER_CANDIDATE = 3;

/** Most recent runs kept per candidate. */
export const RUNS_KEPT = 8;

/**
 * Candidates measured within this factor of the best are a close call: each is measured CLOSE_CALL_RUNS times before
 * one is kept. Three runs are too few to rank plans a few percent apart on a shared machine (docs/decisions.md, issue 29). The same
 * factor picks the candidates re-measured between plan remakes, every PLAN_REUSE runs (a near tie can turn as
 * conditions change); clearly slower ones wait for a remake that changes the plan, since each re-measurement costs
 * two switches of plans, each with its warm-up run.
 */
export const CLOSE_CALL = 1.1;

/** Measured runs of each candidate in a close call before the comparison is final. */
const CLOSE_CALL_RUNS = 6;

/**
 * Recorded runs a candidate gets in a row while candidates are measured in turns: each switch costs a warm-up run
 * that is not recorded, so turns of one run would double the runs spent measuring; longer turns would let a drift of
 * the machine's speed fall on one candidate.
 */
const TURN_RUNS = 2;

/**
 * A candidate with more backend switches than the best so far must have a median this much lower to replace it (or
 * more: the scatter of both candidates' runs, see pickCandidate): its hand-offs are where the variance is (a GPU ->
 * CPU switch waits for the GPU), and three runs' medians on a shared machine differ by a few percent between
 * identical plans.
 */
const MIXED_MARGIN = 0.03;

/**
 * A new candidate (an assignment never measured, offered by a plan remade after the others were measured) is measured
 * only when its estimate is this much below the measured best's estimate in the same plan: the estimates missed the
 * measured totals by about 2x (docs/decisions.md, issue 29), and a remade search offered a new mixed plan every few remakes that ran
 * several times slower for its warm-up and three runs.
 */
const NEW_CANDIDATE_MARGIN = 0.1;

/** One candidate's most recent measured run times, oldest first, with their median and scatter computed once per change. */
export class CandidateRuns {
  private readonly times: number[] = [];
  private medianMs: number | undefined;
  private spreadRatio: number | undefined;

  constructor(times: readonly number[] = []) {
    this.times.push(...times);
  }

  /** Runs recorded. */
  get count(): number {
    return this.times.length;
  }

  /** The recorded times, ms, oldest first. */
  get values(): readonly number[] {
    return this.times;
  }

  /** Median time, ms (core's median: the upper middle run of an even count; Infinity with no runs). */
  get median(): number {
    this.medianMs ??= this.times.length === 0 ? Infinity : median(this.times);
    return this.medianMs;
  }

  /** How much the runs scatter: their median absolute deviation over their median (0 for fewer than two runs). */
  get spread(): number {
    if (this.spreadRatio === undefined) {
      const m = this.median;
      this.spreadRatio =
        this.times.length < 2 || !(m > 0) || !Number.isFinite(m)
          ? 0
          : median(this.times.map((v) => Math.abs(v - m))) / m;
    }
    return this.spreadRatio;
  }

  /** Records a run, dropping the oldest beyond `keep`. */
  push(ms: number, keep: number): void {
    this.times.push(ms);
    if (this.times.length > keep) this.times.shift();
    this.changed();
  }

  /** Drops the oldest run. */
  dropOldest(): void {
    this.times.shift();
    this.changed();
  }

  /** Forgets every run (the candidate stays known: see screenNewCandidates). */
  clear(): void {
    this.times.length = 0;
    this.changed();
  }

  private changed(): void {
    this.medianMs = undefined;
    this.spreadRatio = undefined;
  }
}

/** Which candidate a run uses, and why. */
export interface CandidatePick {
  /** The plan to run (undefined: there was none). */
  readonly plan: PlacementPlan | undefined;
  /** How it was chosen. */
  readonly chosenBy: PlanChoice;
  /** Candidates compared. */
  readonly candidates: number;
}

/** Each candidate's runs, by assignment key (assignmentKey). */
export type MeasuredCandidates = Map<string, CandidateRuns>;

/** A candidate plan with its assignment key and backend switches. */
interface Candidate {
  /** The plan. */
  readonly plan: PlacementPlan;
  /** Its assignment: each node's backend, comma-separated. */
  readonly key: string;
  /** Nodes whose backend differs from the previous node's. */
  readonly switches: number;
}

/** A plan's candidates, computed once per plan object (plans are immutable). */
interface PlanCandidates {
  /** The plan itself, then its alternatives, in that order. */
  readonly offered: readonly Candidate[];
  /** The same, fewest backend switches first (stable). */
  readonly bySwitches: readonly Candidate[];
}

/** Per plan object: its own Candidate (key and switches). */
const CANDIDATE_OF = new WeakMap<PlacementPlan, Candidate>();
/** Per plan object: it and its alternatives as candidates. */
const CANDIDATES_OF = new WeakMap<PlacementPlan, PlanCandidates>();

/** A plan as a candidate (key and switches computed on first use). */
function candidateOf(plan: PlacementPlan): Candidate {
  let candidate = CANDIDATE_OF.get(plan);
  if (candidate === undefined) {
    let switches = 0;
    for (let i = 1; i < plan.nodes.length; i++) if (plan.nodes[i]?.backend !== plan.nodes[i - 1]?.backend) switches++;
    candidate = { plan, key: plan.nodes.map((n) => n.backend).join(','), switches };
    CANDIDATE_OF.set(plan, candidate);
  }
  return candidate;
}

/** A plan and its alternatives as candidates. */
function candidatesOf(plan: PlacementPlan): PlanCandidates {
  let found = CANDIDATES_OF.get(plan);
  if (found === undefined) {
    const offered = [plan, ...plan.alternatives].map(candidateOf);
    found = { offered, bySwitches: [...offered].sort((a, b) => a.switches - b.switches) };
    CANDIDATES_OF.set(plan, found);
  }
  return found;
}

/** One plan's assignment as a key. */
export function assignmentKey(plan: PlacementPlan): string {
  return candidateOf(plan).key;
}

/** A final choice among a plan's candidates (pickCandidate said 'measured'). */
export interface SettledChoice {
  /** The plan whose candidates were compared. */
  readonly plan: PlacementPlan | undefined;
  /** pickCandidate's screenNew for it. */
  readonly screenNew: boolean;
  /** pickCandidate's answer. */
  readonly picked: CandidatePick;
  /** Runs it may still serve. */
  runsLeft: number;
}

/**
 * Runs a final choice among the candidates serves before it is made again: pickCandidate runs once per graph run, in
 * code that stays cold between the nodes' work, and took a few percent of a decode step (docs/decisions.md, issue 29). A candidate's median over its RUNS_KEPT latest runs moves only after several new
 * runs, so a choice four runs old misses nothing the next one would have seen.
 */
const REPICK_EVERY = 4;

/** pickCandidate for `plan`, or the settled choice for the same plan while it has runs left (see REPICK_EVERY). */
export function chooseCandidate(
  entry: {
    readonly measured: MeasuredCandidates;
    readonly lastRun: string | undefined;
    settled: SettledChoice | undefined;
  },
  plan: PlacementPlan | undefined,
  screenNew: boolean,
): CandidatePick {
  const settled = entry.settled;
  if (settled !== undefined && settled.plan === plan && settled.screenNew === screenNew && settled.runsLeft > 0) {
    settled.runsLeft--;
    return settled.picked;
  }
  const picked = pickCandidate(plan, entry.measured, entry.lastRun, screenNew);
  entry.settled = picked.chosenBy === 'measured' ? { plan, screenNew, picked, runsLeft: REPICK_EVERY - 1 } : undefined;
  return picked;
}

/**
 * Forgets every run of each candidate measured within `factor` of the best median, except the best's own (which its
 * runs keep current): pickCandidate measures them again from scratch.
 */
export function forgetEarlyCandidates(measured: MeasuredCandidates, factor: number): void {
  const [bestKey, bestMs] = bestMeasured(measured);
  for (const [key, runs] of measured)
    if (key !== bestKey && runs.count >= RUNS_PER_CANDIDATE && runs.median <= bestMs * factor) runs.clear();
}

/**
 * Drops the oldest run of each candidate measured at least RUNS_PER_CANDIDATE times whose median is within `factor` of
 * the best median (every such candidate when `factor` is Infinity): pickCandidate then runs it once more.
 */
export function refreshCandidates(measured: MeasuredCandidates, factor: number): void {
  const [, bestMs] = bestMeasured(measured);
  for (const runs of measured.values())
    if (runs.count >= RUNS_PER_CANDIDATE && runs.median <= bestMs * factor) runs.dropOldest();
}

/** The key and median of the candidate with the lowest median among those measured RUNS_PER_CANDIDATE times (['', Infinity] if none). */
function bestMeasured(measured: MeasuredCandidates): [string, number] {
  let best: [string, number] = ['', Infinity];
  for (const [key, runs] of measured)
    if (runs.count >= RUNS_PER_CANDIDATE && runs.median < best[1]) best = [key, runs.median];
  return best;
}

/**
 * Records a run that followed `followed` (an assignment key; undefined when the run departed from its plan) to its
 * end. The first run after a switch of plans is a warm-up and is not recorded: it pays what the switch costs once
 * (weights copied to a backend for the first time, a carried KV cache moved: docs/decisions.md, issue 29), which a plan
 * run run after run does not.
 * Returns whether the run was recorded.
 */
export function recordCandidateRun(
  state: { measured: MeasuredCandidates; lastRun: string | undefined },
  followed: string | undefined,
  totalMs: number,
): boolean {
  const warm = followed !== undefined && state.lastRun === followed;
  state.lastRun = followed;
  if (!warm) return false;
  let runs = state.measured.get(followed);
  if (runs === undefined) {
    runs = new CandidateRuns();
    state.measured.set(followed, runs);
  }
  runs.push(totalMs, RUNS_KEPT);
  return true;
}

/**
 * Which candidate a run uses: while some have fewer than RUNS_PER_CANDIDATE measured runs, they are measured in turns
 * of TURN_RUNS recorded runs (after the unrecorded warm-up run of each switch), the one with the fewest runs next
 * (ties: the searched plan, then the alternatives in order), so a drift of the machine's speed falls on all of them
 * alike; then the one whose recent runs have the lowest median, where a plan with more backend switches must be
 * faster than one with fewer by MIXED_MARGIN or by the scatter of both one's runs (CandidateRuns.spread), if larger;
 * but while candidates within CLOSE_CALL of that one have fewer than CLOSE_CALL_RUNS runs, those are measured first,
 * in the same turns. `lastRun`: the assignment the latest run followed. `screenNew` (a plan remade for the residency
 * its candidates were measured under): a single new candidate is measured only when its estimate promises a gain
 * (screenNewCandidates).
 */
export function pickCandidate(
  plan: PlacementPlan | undefined,
  measured: ReadonlyMap<string, CandidateRuns>,
  lastRun?: string,
  screenNew = false,
): CandidatePick {
  if (plan === undefined) return { plan, chosenBy: 'estimate', candidates: 0 };
  const { offered, bySwitches } = candidatesOf(plan);
  if (offered.length === 1) return { plan, chosenBy: 'estimate', candidates: 1 };
  const candidates = screenNew ? screenNewCandidates(offered, measured) : offered;
  const unmeasured = nextToMeasure(candidates, RUNS_PER_CANDIDATE, measured, lastRun);
  if (unmeasured !== undefined) return { plan: unmeasured.plan, chosenBy: 'measuring', candidates: candidates.length };
  // Fewest backend switches first: a plan with more switches must beat the best so far by MIXED_MARGIN, or by the
  // scatter of the two candidates' runs when that is larger: the medians of a few runs that scatter by 10-20% rank
  // plans 3% apart at random (docs/decisions.md, issue 29).
  let best = offered[0] ?? candidateOf(plan);
  let bestMs = Infinity;
  for (const c of bySwitches) {
    if (candidates !== offered && !candidates.includes(c)) continue;
    const ms = medianMs(measured, c);
    const margin =
      c.switches > best.switches && bestMs !== Infinity
        ? Math.max(MIXED_MARGIN, spreadOf(measured, c) + spreadOf(measured, best))
        : 0;
    if (ms < bestMs * (1 - margin)) [best, bestMs] = [c, ms];
  }
  const close = candidates.filter((c) => c === best || medianMs(measured, c) <= bestMs * CLOSE_CALL);
  const undecided = close.length > 1 ? nextToMeasure(close, CLOSE_CALL_RUNS, measured, lastRun) : undefined;
  if (undecided !== undefined) return { plan: undecided.plan, chosenBy: 'measuring', candidates: candidates.length };
  return { plan: best.plan, chosenBy: 'measured', candidates: candidates.length };
}

/** Runs recorded for a candidate. */
function countOf(measured: ReadonlyMap<string, CandidateRuns>, c: Candidate): number {
  return measured.get(c.key)?.count ?? 0;
}

/** A candidate's median run, ms (Infinity unmeasured). */
function medianMs(measured: ReadonlyMap<string, CandidateRuns>, c: Candidate): number {
  return measured.get(c.key)?.median ?? Infinity;
}

/** A candidate's relative scatter (0 unmeasured). */
function spreadOf(measured: ReadonlyMap<string, CandidateRuns>, c: Candidate): number {
  return measured.get(c.key)?.spread ?? 0;
}

/**
 * Among candidates with fewer than `runs` runs: the one the latest run followed while its turn lasts (fewer than
 * TURN_RUNS runs above the fewest), else the first with the fewest. Undefined when all have `runs`.
 */
function nextToMeasure(
  among: readonly Candidate[],
  runs: number,
  measured: ReadonlyMap<string, CandidateRuns>,
  lastRun: string | undefined,
): Candidate | undefined {
  let first: Candidate | undefined;
  let fewest = Infinity;
  let current: Candidate | undefined;
  for (const c of among) {
    const count = countOf(measured, c);
    if (count >= runs) continue;
    if (count < fewest) [first, fewest] = [c, count];
    if (c.key === lastRun) current = c;
  }
  return current !== undefined && countOf(measured, current) < fewest + TURN_RUNS ? current : first;
}

/**
 * The candidates worth measuring: all of them, unless exactly one is new (never measured) and another has been
 * measured RUNS_PER_CANDIDATE times; then the new one stays only if its estimate is NEW_CANDIDATE_MARGIN below the
 * estimate of the measured one with the lowest median (both estimates come from the same search).
 */
function screenNewCandidates(
  offered: readonly Candidate[],
  measured: ReadonlyMap<string, CandidateRuns>,
): readonly Candidate[] {
  const fresh = offered.filter((c) => !measured.has(c.key));
  const [newOne] = fresh;
  if (fresh.length !== 1 || newOne === undefined) return offered;
  let best: Candidate | undefined;
  for (const c of offered)
    if (
      countOf(measured, c) >= RUNS_PER_CANDIDATE &&
      (best === undefined || medianMs(measured, c) < medianMs(measured, best))
    )
      best = c;
  if (best === undefined) return offered;
  return newOne.plan.estimatedMs < best.plan.estimatedMs * (1 - NEW_CANDIDATE_MARGIN)
    ? offered
    : offered.filter((c) => c !== newOne);
}
