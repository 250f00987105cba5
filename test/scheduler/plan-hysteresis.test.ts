// `auto`'s hysteresis per size bucket (half an octave of work) and its bounded exploration, through Scheduler.plan:
// which backend each decision picks and the reason it gives. Every backend here is measured at its prior, so each
// estimate is exactly the candidate's priorMs.
import { describe, expect, it } from 'vitest';
import type { Candidate, SelectionReason } from '@tandem/core';
import { candidate, planBench, planOf } from './plan-bench.ts';

/** Two measured CPU backends `a` and `b` at the given estimates, ms. */
const ab = (aMs: number, bMs: number): Candidate[] => [
  candidate('a', 'cpu', { priority: 1, priorMs: aMs }),
  candidate('b', 'cpu', { priority: 2, priorMs: bMs }),
];

/** A bench whose `a` and `b` are measured; `decide` returns the backend and reason of a committed plan. */
function measuredAb(config: Parameters<typeof planBench>[0] = {}) {
  const bench = planBench(config);
  bench.measure('a');
  bench.measure('b');
  const decide = (aMs: number, bMs: number, flops?: number): [string, SelectionReason['kind']] => {
    const { selection } = planOf(bench.plan(ab(aMs, bMs), flops === undefined ? {} : { flops }));
    return [selection.backend, selection.reason.kind];
  };
  return { bench, decide };
}

describe('auto: hysteresis per size bucket', () => {
  it('a smaller win moves the bucket on the switchAfter-th decision in a row (3), not before nor after', () => {
    const { decide } = measuredAb();
    expect(decide(1, 1.2)).toEqual(['a', 'cost-model']);
    expect([decide(1, 0.9), decide(1, 0.9), decide(1, 0.9)]).toEqual([
      ['a', 'hysteresis'],
      ['a', 'hysteresis'],
      ['b', 'cost-model'],
    ]);
  });

  it('a win of exactly gpuSpeedupThreshold (1.5x) moves the bucket at once', () => {
    const { decide } = measuredAb();
    expect(decide(1, 1.2)).toEqual(['a', 'cost-model']);
    expect(decide(1.5, 1)).toEqual(['b', 'cost-model']);
  });

  it("the bucket's own backend winning again restarts the count of decisions a challenger needs", () => {
    const { decide } = measuredAb();
    decide(1, 1.2);
    const seq = [decide(1, 0.9), decide(1, 0.9), decide(1, 1.2), decide(1, 0.9), decide(1, 0.9), decide(1, 0.9)];
    expect(seq).toEqual([
      ['a', 'hysteresis'],
      ['a', 'hysteresis'],
      ['a', 'cost-model'],
      ['a', 'hysteresis'],
      ['a', 'hysteresis'],
      ['b', 'cost-model'],
    ]);
  });

  it('once the bucket moved, the backend it left needs its own streak to win it back', () => {
    const { decide } = measuredAb();
    decide(1, 1.2);
    for (let i = 0; i < 3; i++) decide(1, 0.9);
    expect(decide(1, 1.2)).toEqual(['b', 'hysteresis']);
    expect(decide(1.2, 1)).toEqual(['b', 'cost-model']);
  });

  it('explain (commit false) claims no bucket: the first committed decision there is made on costs alone', () => {
    const { bench, decide } = measuredAb();
    expect(planOf(bench.plan(ab(1, 1.2), { commit: false })).selection.backend).toBe('a');
    expect(decide(1, 0.9)).toEqual(['b', 'cost-model']);
  });

  it('a bucket whose backend can no longer take the op is decided on costs, among the others', () => {
    const bench = planBench();
    for (const b of ['a', 'b', 'c']) bench.measure(b);
    const c = (extra: Partial<Candidate>) => candidate('c', 'cpu', { priority: 3, priorMs: 0.8, ...extra });
    expect(planOf(bench.plan([...ab(1, 1.2), c({})])).selection.backend).toBe('c');
    const plan = planOf(bench.plan([...ab(1, 1.2), c({ unusable: 'unhealthy: device lost' })]));
    expect(plan.selection).toEqual({ backend: 'a', reason: { kind: 'cost-model', measured: true }, estimatedMs: 1 });
  });

  it('buckets are half octaves of work: 3 and 4 FLOPs share one, 80,000 and 100,000 do not', () => {
    const near = measuredAb();
    near.decide(1, 1.2, 3);
    expect(near.decide(1, 0.9, 4)).toEqual(['a', 'hysteresis']);
    const apart = measuredAb();
    apart.decide(1, 1.2, 80_000); // log2 16.3: bucket 32
    expect(apart.decide(1, 0.9, 100_000)).toEqual(['b', 'cost-model']); // log2 16.6: bucket 33
  });
});

describe('auto: bounded exploration', () => {
  it('an unmeasured backend estimated at exactly exploreMaxRatio (2x) the best is explored, and no probe', () => {
    const bench = planBench();
    bench.measure('a');
    const plan = planOf(bench.plan(ab(1, 2)));
    expect(plan.selection).toEqual({
      backend: 'b',
      reason: { kind: 'exploring', backend: 'b', why: 'unmeasured' },
      estimatedMs: 2,
    });
    expect(plan.probe).toBe(false);
    expect(planOf(planBench().plan(ab(1, 2.01))).selection.backend).toBe('a');
  });

  it('a measured backend is re-measured on the exploreEvery-th decision after its last measurement (stale)', () => {
    const { bench, decide } = measuredAb({ exploreEvery: 3 });
    expect([decide(1, 1.5), decide(1, 1.5)]).toEqual([
      ['a', 'cost-model'],
      ['a', 'cost-model'],
    ]);
    const third = planOf(bench.plan(ab(1, 1.5)));
    expect(third.selection).toEqual({
      backend: 'b',
      reason: { kind: 'exploring', backend: 'b', why: 'stale' },
      estimatedMs: 1.5,
    });
    expect(third.probe).toBe(false);
  });

  it("a close backend whose circuit is half-open gets the call as its probe (reason 'probe'); a far one does not", () => {
    const near = measuredAb();
    near.bench.openCircuit('b');
    near.bench.advance(100);
    const plan = planOf(near.bench.plan(ab(1, 1.5)));
    expect(plan.selection).toEqual({
      backend: 'b',
      reason: { kind: 'exploring', backend: 'b', why: 'probe' },
      estimatedMs: 1.5,
    });
    expect(plan.probe).toBe(true);
    const far = measuredAb();
    far.bench.openCircuit('b');
    far.bench.advance(100);
    expect(planOf(far.bench.plan(ab(1, 3))).selection).toMatchObject({ backend: 'a', reason: { kind: 'cost-model' } });
  });

  it('explain shows that the call would probe the half-open backend, without taking its probe slot', () => {
    const { bench } = measuredAb();
    bench.openCircuit('b');
    bench.advance(100);
    const plan = planOf(bench.plan(ab(1, 1.5), { commit: false }));
    expect(plan).toMatchObject({ selection: { backend: 'b', reason: { why: 'probe' } }, probe: true });
    expect(bench.tracker.wouldAdmit('matmul', 'b')).toBe(true);
  });

  it('a software GPU is not explored unless exploreSoftware is on', () => {
    const candidates = [candidate('cpu', 'cpu'), candidate('swiftshader', 'gpu', { software: true, priorMs: 1.5 })];
    const off = planBench();
    off.measure('cpu');
    expect(planOf(off.plan(candidates)).selection).toMatchObject({ backend: 'cpu', reason: { kind: 'cost-model' } });
    const on = planBench({ exploreSoftware: true });
    on.measure('cpu');
    expect(planOf(on.plan(candidates)).selection.reason).toEqual({
      kind: 'exploring',
      backend: 'swiftshader',
      why: 'unmeasured',
    });
  });

  it('a backend priced from a profile alone is measured once after exploreEvery decisions, however far off, no probe', () => {
    const bench = planBench({ exploreEvery: 1 });
    bench.costModel.seed([{ opKey: 'matmul|f32', backend: 'b', sizes: [[Math.log2(1e6 + 1), 0, 0]] }]);
    bench.measure('a');
    const plan = planOf(bench.plan(ab(1, 5)));
    expect(plan.selection).toEqual({
      backend: 'b',
      reason: { kind: 'exploring', backend: 'b', why: 'profile' },
      estimatedMs: 5,
    });
    expect(plan.probe).toBe(false);
  });
});
