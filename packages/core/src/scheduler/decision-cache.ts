// The decision cache: a plan made for one kind of call is reused by the next identical calls, so a hot loop of
// small ops pays for a full decision only now and then. "Identical" means the same op and dtype, the same work
// (flops and bytes: flops alone are 0 for every concat and for a matmul of any size with K = 0, so a plan made for a
// small one, memory checked, was reused for one that no backend had room for), the same strategy and the same
// residency of every input. A plan is reused until its op has seen `reuse` more
// decisions (of any size: a plan never outlives what the cost model learned since by more than that), and never
// once anything it depended on may have changed:
//  - any failure, circuit transition, backend (re)initialisation or health change empties the cache;
//  - a run time outside [estimate / driftFactor, estimate * driftFactor] ends that plan's reuse (the estimate of
//    the run alone: the plan's estimate less the input transfers and the read-back it charged);
//  - a measurement of another backend on the same work (an `only` call, a fallback) that is within
//    driftFactor of the plan's run estimate ends it too;
//  - only plans the scheduler marks cacheable are kept (no exploration, probe, hysteresis, open circuit,
//    memory pressure or unmeasured estimate).
// The cost model still learns from every call, and its decision counter still ticks on every reuse, so
// exploration and staleness keep their schedule (a replan happens within `reuse` calls).
import type { OpWork } from '../op-definition.ts';
import type { SchedulePlan } from './selection.ts';

/** Decision cache settings. */
export interface DecisionCacheConfig {
  /** A plan is reused until its op (any size) has made this many more decisions (0 turns the cache off). */
  readonly reuse: number;
  /** A measured time this many times off the plan's estimate (either way) ends the plan's reuse. */
  readonly driftFactor: number;
}

/** Defaults: replan within 32 decisions of the op (exploration looks every 50), or at once when a measurement is 2x off. */
export const DEFAULT_DECISION_CACHE_CONFIG: DecisionCacheConfig = { reuse: 32, driftFactor: 2 };

/** A reusable plan and what it was made for. */
export interface CachedDecision {
  /** The plan to reuse. */
  readonly plan: SchedulePlan;
  /** The cost model's key, e.g. 'matmul|f32' (its decision counter ticks on each reuse). */
  readonly opKey: string;
  /** Residency signature of the inputs when the plan was made. */
  readonly residency: number;
  /** Bytes the call reads and writes (OpWork.bytes): with the flops, what makes two calls the same work. */
  readonly bytes: number;
  /** The run time the plan expects on its choice, ms (its estimate less the transfers and read-back it charged). */
  readonly runEstimateMs: number;
  /** The op's decision count (CostModel.decisionCount) after which the plan is not reused. */
  expiresAt: number;
}

/** A fresh plan to keep, with what it was made for. */
export interface PlanToStore {
  /** The call's work (its flops and bytes key the entry). */
  readonly work: OpWork;
  /** The call's kind: op, dtypes and strategy as one number. */
  readonly kind: number;
  /** Residency signature of the inputs. */
  readonly residency: number;
  /** The cost model's key, e.g. 'matmul|f32'. */
  readonly opKey: string;
  /** The plan. */
  readonly plan: SchedulePlan;
  /** The op's decision count now (CostModel.decisionCount). */
  readonly decisionCount: number;
  /** The run time the plan expects on its choice, ms (default: its whole estimate). */
  readonly runEstimateMs?: number;
}

/** Plans by call kind; see the file comment for when one is reused. */
export class DecisionCache {
  readonly config: DecisionCacheConfig;
  /** work (flops) -> call kind (op, dtype, strategy) -> decision (whose bytes must match too). */
  private readonly byWork = new Map<number, Map<number, CachedDecision>>();
  private size = 0;
  private static readonly MAX_ENTRIES = 4096;

  constructor(config: Partial<DecisionCacheConfig> = {}) {
    this.config = { ...DEFAULT_DECISION_CACHE_CONFIG, ...config };
  }

  /** The plan to reuse for this call, or undefined. `decisions` reads the op's decision count from the cost model. */
  lookup(
    work: OpWork,
    kind: number,
    residency: number,
    decisions: (opKey: string) => number,
  ): CachedDecision | undefined {
    const entry = this.byWork.get(work.flops)?.get(kind);
    if (
      entry === undefined ||
      entry.bytes !== work.bytes ||
      entry.residency !== residency ||
      decisions(entry.opKey) >= entry.expiresAt
    )
      return undefined;
    return entry;
  }

  /** Keeps a fresh plan for reuse. */
  store(fresh: PlanToStore): void {
    if (this.config.reuse <= 0) return;
    if (this.size >= DecisionCache.MAX_ENTRIES) this.clear();
    const { work, kind, plan } = fresh;
    let byKind = this.byWork.get(work.flops);
    if (byKind === undefined) {
      byKind = new Map();
      this.byWork.set(work.flops, byKind);
    }
    if (!byKind.has(kind)) this.size++;
    const runEstimateMs = fresh.runEstimateMs ?? plan.selection.estimatedMs;
    byKind.set(kind, {
      plan,
      opKey: fresh.opKey,
      residency: fresh.residency,
      bytes: work.bytes,
      runEstimateMs,
      expiresAt: fresh.decisionCount + this.config.reuse,
    });
  }

  /** Ends a plan's reuse when the time measured on its choice is far from what it expected. */
  checkDrift(entry: CachedDecision, measuredMs: number): void {
    const expected = entry.runEstimateMs;
    const f = this.config.driftFactor;
    if (!(measuredMs <= expected * f && measuredMs * f >= expected)) entry.expiresAt = -1;
  }

  /**
   * Ends the reuse of plans for this work that chose another backend than the one just measured, when that
   * measurement is within driftFactor of the plan's estimate: the other backend may now win. A backend measured
   * far slower (an `only` call on a software GPU, say) changes nothing.
   */
  noteMeasured(work: OpWork, opKey: string, backend: string, measuredMs: number): void {
    const byKind = this.byWork.get(work.flops);
    if (byKind === undefined) return;
    for (const entry of byKind.values()) {
      if (
        entry.opKey === opKey &&
        entry.bytes === work.bytes &&
        entry.plan.selection.backend !== backend &&
        measuredMs < entry.runEstimateMs * this.config.driftFactor
      )
        entry.expiresAt = -1;
    }
  }

  /** Forgets every plan (something a plan depended on changed). */
  clear(): void {
    if (this.size === 0) return;
    this.byWork.clear();
    this.size = 0;
  }
}
