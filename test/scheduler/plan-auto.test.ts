// What `auto` decides in Scheduler.plan, and the reason it gives: gpuMinBatchSize as a prior, the gpuMinSpeedup policy,
// background warm-ups, exploration and the cost tie-break. (Hysteresis: plan-hysteresis.test.ts.)
import { describe, expect, it } from 'vitest';
import { cacheableOf, candidate, FLOPS, OP_KEY, planBench, planOf } from './plan-bench.ts';

describe('auto: the reason a CPU gets the op', () => {
  it('a small batch keeps its below-min-batch reason while another GPU is short of memory', () => {
    const plan = planOf(
      planBench().plan(
        [
          candidate('cpu', 'cpu'),
          candidate('gpu0', 'gpu', { requiredBytes: 2000, availableBytes: 1000 }),
          candidate('gpu1', 'gpu', { priorMs: 0.5 }),
        ],
        { batch: 1 },
      ),
    );
    expect(plan.selection.reason).toEqual({ kind: 'below-min-batch', batch: 1, minBatch: 64 });
  });

  it("a GPU the cost model chose keeps the reason cost-model while another backend's circuit is open", () => {
    const bench = planBench();
    for (const b of ['cpu', 'gpu0', 'gpu1']) bench.measure(b);
    bench.openCircuit('gpu1');
    const plan = planOf(
      bench.plan([candidate('cpu', 'cpu', { priorMs: 5 }), candidate('gpu0', 'gpu'), candidate('gpu1', 'gpu')]),
    );
    expect(plan.selection).toEqual({ backend: 'gpu0', reason: { kind: 'cost-model', measured: true }, estimatedMs: 1 });
  });

  it('the tie-break between equal estimates is the lower priority, whatever order the backends come in', () => {
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const bench = planBench();
      bench.measure('a');
      bench.measure('b');
      const byName = { a: candidate('a', 'cpu', { priority: 2 }), b: candidate('b', 'cpu', { priority: 1 }) };
      const plan = planOf(bench.plan(order.map((n) => byName[n as 'a' | 'b'])));
      expect(plan.selection.backend).toBe('b');
      expect(plan.fallbacks).toEqual(['a']);
    }
  });
});

describe('auto: a GPU that compiles on its first run warms up in the background', () => {
  it('the cheapest backend that needs no first run serves the call meanwhile, and the plan takes no probe', () => {
    const bench = planBench();
    bench.measure('cpu');
    const result = bench.plan([
      candidate('cpu', 'cpu', { priorMs: 5 }),
      candidate('gpu', 'gpu', { compilesOnFirstRun: true }),
    ]);
    const plan = planOf(result);
    expect(plan.selection).toEqual({ backend: 'cpu', reason: { kind: 'warming', backend: 'gpu' }, estimatedMs: 5 });
    expect(plan.warmUp).toBe('gpu');
    expect(plan.probe).toBe(false);
    expect(plan.fallbacks).toEqual(['gpu']);
  });

  it('another GPU that also compiles on its first run does not stand in for it', () => {
    const bench = planBench();
    bench.measure('cpu');
    const plan = planOf(
      bench.plan([
        candidate('cpu', 'cpu', { priorMs: 5 }),
        candidate('gpuA', 'gpu', { compilesOnFirstRun: true }),
        candidate('gpuB', 'gpu', { compilesOnFirstRun: true, priorMs: 1.5 }),
      ]),
    );
    expect(plan.selection.backend).toBe('cpu');
    expect(plan.warmUp).toBe('gpuB'); // gpuB is explored (unmeasured, close to gpuA) and warms up first
  });

  it('a CPU backend is never held back for a warm-up, even one that compiles on its first run', () => {
    const bench = planBench();
    bench.measure('wasm');
    const plan = planOf(
      bench.plan([candidate('jit', 'cpu', { compilesOnFirstRun: true }), candidate('wasm', 'cpu', { priorMs: 5 })]),
    );
    expect(plan.selection).toEqual({ backend: 'jit', reason: { kind: 'cost-model', measured: false }, estimatedMs: 1 });
    expect(plan.warmUp).toBeUndefined();
  });
});

describe('auto: gpuMinBatchSize is a prior', () => {
  it('a batch of exactly gpuMinBatchSize is not small: the GPU competes on its estimate', () => {
    const bench = planBench();
    bench.measure('cpu');
    const candidates = [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 0.5 })];
    expect(planOf(bench.plan(candidates, { batch: 64, commit: false })).selection.reason).toEqual({
      kind: 'cost-model',
      measured: false,
    });
    expect(planOf(bench.plan(candidates, { batch: 63, commit: false })).selection.reason).toEqual({
      kind: 'exploring',
      backend: 'gpu',
      why: 'unmeasured',
    });
  });

  it('once the CPU is measured, a small batch explores a kept-out GPU whose compute is within exploreMaxRatio', () => {
    const bench = planBench();
    bench.measure('cpu');
    const gpuAt = (priorMs: number) => [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs, transferMs: 10 })];
    const result = bench.plan(gpuAt(2), { batch: 1 }); // 2 ms of compute: exactly 2x the CPU's (copies left out)
    expect(planOf(result).selection).toEqual({
      backend: 'gpu',
      reason: { kind: 'exploring', backend: 'gpu', why: 'unmeasured' },
      estimatedMs: 12,
    });
    expect(planOf(result).probe).toBe(false);
    expect(cacheableOf(result)).toBe(false);
    expect(planOf(bench.plan(gpuAt(2.01), { batch: 1 })).selection.reason.kind).toBe('below-min-batch');
  });

  it('with a batch above gpuMinBatchSize, an unmeasured GPU whose copies put it far off is not explored', () => {
    const bench = planBench();
    bench.measure('cpu');
    const plan = planOf(
      bench.plan([candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 1.5, transferMs: 10 })]),
    );
    expect(plan.selection).toEqual({ backend: 'cpu', reason: { kind: 'cost-model', measured: false }, estimatedMs: 1 });
  });

  it('the GPU to measure is one gpuMinBatchSize kept out, measured against a CPU, not against a measured GPU', () => {
    const bench = planBench();
    bench.measure('cpu');
    bench.measure('gpuM');
    const cpuFirst = planOf(
      bench.plan(
        [
          candidate('cpu', 'cpu'),
          candidate('wasm', 'cpu', { priorMs: 1.2 }),
          candidate('gpuM', 'gpu', { priorMs: 1.3 }),
          candidate('gpuU', 'gpu', { priorMs: 1.5 }),
        ],
        { batch: 1 },
      ),
    );
    expect(cpuFirst.selection.reason).toEqual({ kind: 'exploring', backend: 'gpuU', why: 'unmeasured' });
    const gpuFirst = planOf(
      bench.plan(
        [
          candidate('cpu', 'cpu', { priorMs: 10 }),
          candidate('gpuM', 'gpu'),
          candidate('gpuU', 'gpu', { priorMs: 1.5 }),
        ],
        { batch: 1 },
      ),
    );
    expect(gpuFirst.selection).toEqual({
      backend: 'gpuM',
      reason: { kind: 'cost-model', measured: true },
      estimatedMs: 1,
    });
  });

  it("explain right after a GPU's warm-up run keeps the small batch on the CPU; the next decision measures the GPU", () => {
    const bench = planBench();
    bench.measure('cpu');
    bench.costModel.observe(OP_KEY, 'gpu', FLOPS, 1, 1); // its warm-up run: not learned from
    const candidates = [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 0.5 })];
    expect(planOf(bench.plan(candidates, { batch: 1, commit: false })).selection.reason.kind).toBe('below-min-batch');
    expect(planOf(bench.plan(candidates, { batch: 1 })).selection.reason).toEqual({
      kind: 'exploring',
      backend: 'gpu',
      why: 'unmeasured',
    });
  });
});

describe('auto: the gpuMinSpeedup policy', () => {
  it('a GPU exactly gpuMinSpeedup times faster than the CPU gets the op', () => {
    const bench = planBench({ gpuMinSpeedup: 2 });
    bench.measure('cpu');
    bench.measure('gpu');
    const plan = planOf(bench.plan([candidate('cpu', 'cpu', { priorMs: 2 }), candidate('gpu', 'gpu')]));
    expect(plan.selection).toEqual({ backend: 'gpu', reason: { kind: 'cost-model', measured: true }, estimatedMs: 1 });
  });

  it('a GPU the policy keeps out is the reason only when it would have won: tied or slower, the reason is cost-model', () => {
    for (const gpuMs of [1, 3]) {
      const bench = planBench({ gpuMinSpeedup: 2 });
      bench.measure('cpu');
      bench.measure('gpu');
      const plan = planOf(bench.plan([candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: gpuMs })]));
      expect(plan.selection).toEqual({
        backend: 'cpu',
        reason: { kind: 'cost-model', measured: true },
        estimatedMs: 1,
      });
    }
  });

  it('a GPU the policy keeps out is still re-measured when stale, so a GPU that got faster is found', () => {
    const bench = planBench({ gpuMinSpeedup: 2, exploreEvery: 3 });
    for (const b of ['cpu', 'wasm', 'gpu']) bench.measure(b);
    const candidates = [
      candidate('cpu', 'cpu'),
      candidate('wasm', 'cpu', { priorMs: 5 }),
      candidate('gpu', 'gpu', { priorMs: 0.8 }),
    ];
    const reasons = [1, 2, 3].map(() => planOf(bench.plan(candidates)).selection.reason);
    expect(reasons[0]).toMatchObject({ kind: 'below-min-speedup', gpu: 'gpu' });
    expect(reasons[2]).toEqual({ kind: 'exploring', backend: 'gpu', why: 'stale' });
  });
});
