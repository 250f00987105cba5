// When Scheduler.plan says its plan may be reused (PlanResult.cacheable, what the decision cache stores): a stable
// reason, estimates resting on measurements where the reason is the cost comparison, nothing short of memory and
// every eligible backend with 4x the bytes the op needs.
import { describe, expect, it } from 'vitest';
import { cacheableOf, candidate, planBench, planOf } from './plan-bench.ts';

describe('Scheduler.plan: reusable plans', () => {
  it("a strategy's plan is reusable: user-preference, force-cpu, gpu-available, gpu-unavailable, only-capable", () => {
    const both = [candidate('cpu', 'cpu'), candidate('gpu', 'gpu')];
    const bench = planBench();
    const cases = [
      [bench.plan(both, { strategy: 'cpu-preferred' }), 'user-preference'],
      [bench.plan(both, { strategy: { only: 'gpu' } }), 'user-preference'],
      [planBench({ forceCpu: true }).plan(both), 'force-cpu'],
      [bench.plan(both, { strategy: 'gpu-preferred' }), 'gpu-available'],
      [bench.plan([candidate('cpu', 'cpu')], { strategy: 'gpu-preferred' }), 'gpu-unavailable'],
      [bench.plan([candidate('gpu', 'gpu')], { strategy: 'cpu-preferred' }), 'only-capable'],
    ] as const;
    for (const [result, kind] of cases) {
      expect(planOf(result).selection.reason.kind).toBe(kind);
      expect(cacheableOf(result)).toBe(true);
    }
  });

  it('a below-min-speedup decision is reusable once both estimates are measured, not while they are priors', () => {
    const candidates = [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 0.8 })];
    const prior = planBench({ gpuMinSpeedup: 2 });
    const onPriors = prior.plan(candidates);
    expect(planOf(onPriors).selection).toEqual({
      backend: 'cpu',
      reason: { kind: 'below-min-speedup', gpu: 'gpu', speedup: 1.25, minSpeedup: 2 },
      estimatedMs: 1,
    });
    expect(cacheableOf(onPriors)).toBe(false);
    const measured = planBench({ gpuMinSpeedup: 2 });
    measured.measure('cpu');
    measured.measure('gpu');
    const onMeasurements = measured.plan(candidates);
    expect(planOf(onMeasurements).selection.reason.kind).toBe('below-min-speedup');
    expect(cacheableOf(onMeasurements)).toBe(true);
  });

  it('a below-min-batch decision is reusable while the estimates are still priors (it rests on no estimate)', () => {
    const result = planBench().plan([candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 0.5 })], { batch: 1 });
    expect(planOf(result).selection).toEqual({
      backend: 'cpu',
      reason: { kind: 'below-min-batch', batch: 1, minBatch: 64 },
      estimatedMs: 1,
    });
    expect(cacheableOf(result)).toBe(true);
  });

  it('a plan made while a backend is short of memory is not reusable, whatever its reason', () => {
    const result = planBench().plan(
      [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { requiredBytes: 2000, availableBytes: 1000 })],
      { strategy: 'cpu-preferred' },
    );
    expect(planOf(result).selection.reason).toEqual({ kind: 'user-preference', strategy: 'cpu-preferred' });
    expect(cacheableOf(result)).toBe(false);
  });

  it('a plan is reusable only when every eligible backend has at least 4x the bytes the op needs', () => {
    const bench = planBench();
    const withCpuFree = (availableBytes: number) =>
      bench.plan([candidate('cpu', 'cpu', { requiredBytes: 1000, availableBytes }), candidate('gpu', 'gpu')], {
        strategy: 'cpu-preferred',
      });
    expect(cacheableOf(withCpuFree(4000))).toBe(true);
    expect(cacheableOf(withCpuFree(3999))).toBe(false); // the gpu's unknown free memory does not make up for it
    expect(planOf(withCpuFree(3999)).selection.backend).toBe('cpu');
  });
});
