// The executor's settled plans in the engine's profile (issue 31): per graph structure, the backends its plans were
// made over and each candidate assignment's recent measured run times. An engine that starts from the profile
// compares the candidates from those runs, so its first planned run uses the measured best instead of measuring
// each candidate again; its own runs replace them (a candidate keeps its latest runs), and the first remake measures
// the close ones again from scratch, as it does for runs measured here (node-decision.ts).
import type { Engine } from '@tandem/core';
import { CandidateRuns, RUNS_KEPT, RUNS_PER_CANDIDATE } from './plan-candidates.ts';
import { SHARED_PLANS, type StructurePlans } from './shared-plans.ts';

/** The profile section's name. */
export const PLAN_SECTION = 'graphPlans';

/** One structure's measured candidates, as the profile keeps them. */
interface SavedStructure {
  /** The structure key (node names, ops, input shapes rounded up to powers of two). */
  readonly structure: string;
  /** The available backends the plans were made over, in PlaceMask bit order. */
  readonly backends: readonly string[];
  /** Each candidate measured at least RUNS_PER_CANDIDATE times: its assignment and recent run times, ms. */
  readonly candidates: ReadonlyArray<{ readonly assignment: string; readonly runsMs: readonly number[] }>;
}

/** Engines whose profile has the section already. */
const ATTACHED = new WeakSet<Engine>();

/** Makes the executor's plans part of `engine`'s profile (once per engine): saved with it, seeded from it. */
export function attachPlanProfile(engine: Engine): void {
  if (ATTACHED.has(engine)) return;
  ATTACHED.add(engine);
  engine.profile.attach({
    name: PLAN_SECTION,
    export: () => savedStructures(engine),
    import: (value) => seedStructures(engine, value),
  });
}

function savedStructures(engine: Engine): SavedStructure[] {
  const saved: SavedStructure[] = [];
  for (const [structure, plans] of SHARED_PLANS.get(engine) ?? []) {
    const candidates = [...plans.measured]
      .filter(([, runs]) => runs.count >= RUNS_PER_CANDIDATE)
      .map(([assignment, runs]) => ({ assignment, runsMs: [...runs.values] }));
    if (candidates.length > 0) saved.push({ structure, backends: plans.backends, candidates });
  }
  return saved;
}

/** Seeds the structures this engine has not planned yet; throws naming the first thing wrong with `value`. */
function seedStructures(engine: Engine, value: unknown): void {
  const structures = checkedStructures(value);
  let byStructure = SHARED_PLANS.get(engine);
  if (byStructure === undefined) {
    byStructure = new Map();
    SHARED_PLANS.set(engine, byStructure);
  }
  for (const saved of structures) {
    if (byStructure.has(saved.structure)) continue;
    const plans: StructurePlans = {
      backends: saved.backends,
      byKey: new Map(),
      // As if the first plan (one run on priors) had been made: the next one compares the candidates at once.
      plansMade: 1,
      measured: new Map(
        saved.candidates.map((c) => [c.assignment, new CandidateRuns(c.runsMs.slice(-RUNS_KEPT))] as const),
      ),
      lastRun: undefined,
      runsSinceRefresh: 0,
      settled: undefined,
    };
    byStructure.set(saved.structure, plans);
  }
}

function checkedStructures(value: unknown): SavedStructure[] {
  if (!Array.isArray(value)) throw new Error(`${PLAN_SECTION} is not an array`);
  return value.map((entry: unknown, i): SavedStructure => {
    const where = `${PLAN_SECTION}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${where} is not an object`);
    const structure: unknown = Reflect.get(entry, 'structure');
    const backends: unknown = Reflect.get(entry, 'backends');
    const candidates: unknown = Reflect.get(entry, 'candidates');
    if (typeof structure !== 'string') throw new Error(`${where}.structure is not a string`);
    if (!isStringList(backends)) throw new Error(`${where}.backends is not a list of backend names`);
    if (!Array.isArray(candidates)) throw new Error(`${where}.candidates is not an array`);
    return {
      structure,
      backends,
      candidates: candidates.map((c: unknown, j) => {
        const assignment: unknown = typeof c === 'object' && c !== null ? Reflect.get(c, 'assignment') : undefined;
        const runsMs: unknown = typeof c === 'object' && c !== null ? Reflect.get(c, 'runsMs') : undefined;
        if (typeof assignment !== 'string') throw new Error(`${where}.candidates[${j}].assignment is not a string`);
        if (!isTimeList(runsMs) || runsMs.length < RUNS_PER_CANDIDATE)
          throw new Error(`${where}.candidates[${j}].runsMs is not ${RUNS_PER_CANDIDATE} or more times >= 0, ms`);
        return { assignment, runsMs };
      }),
    };
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'string');
}

function isTimeList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);
}
