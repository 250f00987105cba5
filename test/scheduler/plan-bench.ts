// Scheduler.plan on its own: candidates built by hand, a fresh cost model, and a breaker on a manual clock. Costs are
// exact: a measured backend is measured at its prior (ratio 1), so its estimate is its prior to the bit.
import {
  type Candidate,
  CostModel,
  type PlanResult,
  type SchedulePlan,
  Scheduler,
  type SchedulerConfig,
  type Strategy,
  Tracker,
} from '@tandem/core';

/** The op every bench request is for. */
export const OP = 'matmul';
/** Its cost-model key. */
export const OP_KEY = 'matmul|f32';
/** Work of a request unless it says otherwise: a batch above the default gpuMinBatchSize (64). */
export const FLOPS = 1e6;

/** A candidate that can take the op, with a 1 ms prior, no copies and no memory limit. */
export function candidate(name: string, kind: 'cpu' | 'gpu', extra: Partial<Candidate> = {}): Candidate {
  return {
    name,
    kind,
    priority: kind === 'cpu' ? 10 : 20,
    fallbackOnly: false,
    unusable: undefined,
    priorMs: 1,
    transferMs: 0,
    requiredBytes: 1000,
    availableBytes: undefined,
    ...extra,
  };
}

/** A scheduler over a fresh cost model and a breaker that opens after 5 failures and probes 100 ms later. */
export function planBench(config: Partial<SchedulerConfig> = {}) {
  let now = 0;
  const costModel = new CostModel();
  const tracker = new Tracker(() => now, { minCalls: 5, coolDownMs: 100 });
  const scheduler = new Scheduler(costModel, tracker, config);
  return {
    costModel,
    tracker,
    scheduler,
    /** Plans a call of `flops` work and `batch` rows over `candidates`. */
    plan(
      candidates: readonly Candidate[],
      options: { strategy?: Strategy; commit?: boolean; flops?: number; batch?: number } = {},
    ): PlanResult {
      const { strategy = 'auto', commit = true, flops = FLOPS, batch = 1000 } = options;
      return scheduler.plan(
        { op: OP, opKey: OP_KEY, work: { flops, bytes: 1e4, batch }, candidates },
        strategy,
        commit,
      );
    },
    /** Five failures on `backend`: its circuit opens. */
    openCircuit(backend: string): void {
      for (let i = 0; i < 5; i++) tracker.record(OP, backend, false, 1, false);
    },
    /** Moves the breaker's clock. */
    advance(ms: number): void {
      now += ms;
    },
    /** A warm-up run and a learned run of `backend`, each as long as its prior: its estimate is then its prior. */
    measure(backend: string, flops = FLOPS): void {
      costModel.observe(OP_KEY, backend, flops, 1, 1);
      costModel.observe(OP_KEY, backend, flops, 1, 1);
    },
  };
}

/** The plan of a result that must have one. */
export function planOf(result: PlanResult): SchedulePlan {
  if (!result.ok) throw new Error(`no plan: ${JSON.stringify(result.skipped)}`);
  return result.plan;
}

/** Whether a result that must have a plan may be reused by the decision cache. */
export function cacheableOf(result: PlanResult): boolean {
  if (!result.ok) throw new Error(`no plan: ${JSON.stringify(result.skipped)}`);
  return result.cacheable;
}
