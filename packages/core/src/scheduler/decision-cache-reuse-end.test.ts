// When the decision cache stops reusing a plan: a measured run time outside [estimate / driftFactor, estimate *
// driftFactor] (the bounds themselves are within), and a close measurement of another backend on the same work of the
// same op (another op's or another size's measurement leaves the plan alone).
import { describe, expect, it } from 'vitest';
import { DecisionCache } from './decision-cache.ts';
import type { SchedulePlan } from './selection.ts';

/** A plan that chose the CPU, expecting 1 ms. */
const PLAN: SchedulePlan = {
  selection: { backend: 'cpu', reason: { kind: 'force-cpu' }, estimatedMs: 1 },
  fallbacks: [],
  skipped: [],
  costsMs: { cpu: 1 },
  transfersMs: { cpu: 0 },
  probe: false,
};
const WORK = { flops: 100, bytes: 400, batch: 1 };
const KIND = 7;
const RESIDENCY = 3;

/** A cache (reuse 2, driftFactor 2) holding PLAN for 'matmul|f32', made at decision count `made`. */
function cacheWithPlan(made: number) {
  const cache = new DecisionCache({ reuse: 2, driftFactor: 2 });
  cache.store({ work: WORK, kind: KIND, residency: RESIDENCY, opKey: 'matmul|f32', plan: PLAN, decisionCount: made });
  const reused = (count = made): boolean => cache.lookup(WORK, KIND, RESIDENCY, () => count) !== undefined;
  const entry = cache.lookup(WORK, KIND, RESIDENCY, () => made);
  if (entry === undefined) throw new Error('the fresh plan is not in the cache');
  return { cache, entry, reused };
}

describe('drift of the measured run time', () => {
  it('keeps the plan when the run took exactly driftFactor times the estimate, or exactly 1/driftFactor of it', () => {
    const { cache, entry, reused } = cacheWithPlan(10);
    cache.checkDrift(entry, 2);
    expect(reused()).toBe(true);
    cache.checkDrift(entry, 0.5);
    expect(reused()).toBe(true);
  });

  it('ends the plan when the run was faster than 1/driftFactor of the estimate', () => {
    const { cache, entry, reused } = cacheWithPlan(10);
    cache.checkDrift(entry, 0.49);
    expect(reused()).toBe(false);
  });

  it("ends the plan even before its op's first counted decision", () => {
    const { cache, entry, reused } = cacheWithPlan(0);
    cache.checkDrift(entry, 3);
    expect(reused(0)).toBe(false);
  });
});

describe('a measurement of another backend on the same work', () => {
  it('ends the plan only when the other backend ran in under driftFactor times its run estimate (exactly that keeps it)', () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 2); // 2x the plan's 1 ms: the GPU cannot win by that
    expect(reused()).toBe(true);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 1.99);
    expect(reused()).toBe(false);
  });

  it("ends it even before its op's first counted decision", () => {
    const { cache, reused } = cacheWithPlan(0);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 0.5);
    expect(reused(0)).toBe(false);
  });

  it("leaves the plan of another op key alone (another dtype's matmul of the same work)", () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured(WORK, 'matmul|f16', 'gpu', 0.5);
    expect(reused()).toBe(true);
  });

  it('leaves the plan alone when the measured call moved other bytes (same flops, other work)', () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured({ flops: WORK.flops, bytes: 404, batch: 1 }, 'matmul|f32', 'gpu', 0.5);
    expect(reused()).toBe(true);
  });
});
