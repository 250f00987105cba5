// What the cost model tells about what it has learned: the backends measured on an op, the size of its newest
// learned call and the snapshot a profile saves (the engine's gpuSpeedup telemetry and profiles read these).
import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';

const KEY = 'matmul|f32';

/** One decision of KEY, then a run of `flops` on `backend` measured at 1 ms. */
function decideAndRun(m: CostModel, backend: string, flops: number): void {
  m.tick(KEY);
  m.observe(KEY, backend, flops, 1, 1);
}

describe('CostModel.backendsMeasured', () => {
  it('lists the backends learned from on an op: not one that only had its warm-up run', () => {
    const m = new CostModel();
    m.observe(KEY, 'cpu', 1e6, 1, 1); // warm-up
    m.observe(KEY, 'cpu', 1e6, 1, 1); // learned
    m.observe(KEY, 'gpu', 1e6, 1, 1); // warm-up only
    expect(m.backendsMeasured(KEY)).toEqual(['cpu']);
  });

  it('lists a backend seeded from a profile, and none for an op never run', () => {
    const m = new CostModel();
    m.seed([{ opKey: KEY, backend: 'gpu', sizes: [[20, 0, 1]] }]);
    expect(m.backendsMeasured(KEY)).toEqual(['gpu']);
    expect(m.backendsMeasured('add|f32')).toEqual([]);
  });
});

describe('CostModel.latestFlops', () => {
  it('is undefined for an op never run, and for one that only had warm-up runs', () => {
    const m = new CostModel();
    expect(m.latestFlops(KEY)).toBeUndefined();
    m.observe(KEY, 'gpu', 2 ** 20 - 1, 1, 1); // warm-up
    expect(m.latestFlops(KEY)).toBeUndefined();
  });

  it('is the work of the newest call learned from on any backend, whichever backend was measured first', () => {
    const m = new CostModel();
    decideAndRun(m, 'cpu', 2 ** 10 - 1); // warm-up
    decideAndRun(m, 'cpu', 2 ** 10 - 1);
    expect(m.latestFlops(KEY)).toBe(2 ** 10 - 1);
    decideAndRun(m, 'gpu', 2 ** 20 - 1); // warm-up
    decideAndRun(m, 'gpu', 2 ** 20 - 1);
    expect(m.latestFlops(KEY)).toBe(2 ** 20 - 1);
    decideAndRun(m, 'cpu', 2 ** 12 - 1); // the newest learned call is on the backend measured first
    expect(m.latestFlops(KEY)).toBe(2 ** 12 - 1);
    // A later warm-up run on another backend is not learned from: it does not change the answer.
    decideAndRun(m, 'npu', 2 ** 8 - 1);
    expect(m.latestFlops(KEY)).toBe(2 ** 12 - 1);
  });
});

describe('CostModel.snapshot', () => {
  it('saves the sizes of every series learned from, and nothing for a backend that only had its warm-up run', () => {
    const m = new CostModel({ warmupSamples: 1 });
    m.observe(KEY, 'cpu', 2 ** 10 - 1, 1, 1); // warm-up
    m.observe(KEY, 'cpu', 2 ** 10 - 1, 1, 2);
    m.observe(KEY, 'gpu', 2 ** 10 - 1, 1, 1); // warm-up only
    expect(m.snapshot()).toEqual([{ opKey: KEY, backend: 'cpu', sizes: [[10, 0, 1]] }]);
  });
});
