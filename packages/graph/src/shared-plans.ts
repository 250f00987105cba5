// The plans the executor shares between graphs of one structure on one engine, with the measured runs of their
// candidates: what node-decision.ts makes and reuses, and what plan-profile.ts keeps in the engine's profile.
import type { Engine } from '@tandem/core';
import type { PlacementPlan } from './placement.ts';
import type { MeasuredCandidates, SettledChoice } from './plan-candidates.ts';

/** A plan made for one residency of a structure's inputs. */
export interface KeyedPlan {
  /** The plan (undefined: some node had no usable backend). */
  readonly plan: PlacementPlan | undefined;
  /** Runs it may still serve. */
  runsLeft: number;
  /** Runs it was given when made. */
  readonly reuse: number;
  /** Made again for the same residency after the plan before it ran out (its candidates were measured under it). */
  readonly remade: boolean;
}

/**
 * The plans of every graph of one structure on one engine (a decoder's step graphs differ only in KV length), one
 * per residency of the inputs (a candidate that places the KV cache elsewhere changes where the next run's inputs
 * live; switching back then reuses the plan made for that residency), and the measured runs of the candidates.
 */
export interface StructurePlans {
  /** The available backends the plans were made over (PlaceMask bit order of the keys). */
  readonly backends: readonly string[];
  /** Where each input lived when a plan was made -> that plan. */
  readonly byKey: Map<string, KeyedPlan>;
  /** Plans made so far for this structure. */
  plansMade: number;
  /** Total run times, ms, of the runs that followed a candidate to the end, by its assignment. */
  readonly measured: MeasuredCandidates;
  /** The assignment the latest run followed to its end (undefined: it departed from its plan, or none ran yet). */
  lastRun: string | undefined;
  /** Runs of reused plans since the candidates were last given another run. */
  runsSinceRefresh: number;
  /** The latest final choice among the candidates, reused for a few runs of the same plan (see chooseCandidate). */
  settled: SettledChoice | undefined;
}

/** Engine -> structure key -> its plans. */
export const SHARED_PLANS = new WeakMap<Engine, Map<string, StructurePlans>>();
