// CostModel: what counts as a surprise, which runs of surprises re-learn a size, what a size is re-learned from, and
// what observe() reports when it re-learns (more cases in cost-model.test.ts).
import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';

const KEY = 'matmul|f32';
const FLOPS = 1e6;

/** A model that has learned `n` runs of 1 ms at prior 1 ms (no warm-up run); `config` overrides. */
function learnedOneMs(config: ConstructorParameters<typeof CostModel>[0], n = 20): CostModel {
  const m = new CostModel({ warmupSamples: 0, surpriseFactor: 2, surprisesForRegimeChange: 3, ...config });
  for (let i = 0; i < n; i++) m.observe(KEY, 'gpu', FLOPS, 1, 1);
  return m;
}

describe('CostModel: what is a surprise', () => {
  it('a sample exactly surpriseFactor times slower than the estimate is not a surprise: only more than that is', () => {
    const m = learnedOneMs({});
    expect([2, 2, 2, 2].map((ms) => m.observe(KEY, 'gpu', FLOPS, 1, ms))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const beyond = learnedOneMs({});
    expect([2.01, 2.01, 2.01].map((ms) => beyond.observe(KEY, 'gpu', FLOPS, 1, ms))).toEqual([undefined, undefined, 1]);
  });

  it('a sample exactly surpriseFactor times faster than the estimate is not a surprise: only more than that is', () => {
    const m = learnedOneMs({});
    expect([0.5, 0.5, 0.5, 0.5].map((ms) => m.observe(KEY, 'gpu', FLOPS, 1, ms))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const beyond = learnedOneMs({});
    expect([0.49, 0.49, 0.49].map((ms) => beyond.observe(KEY, 'gpu', FLOPS, 1, ms))).toEqual([undefined, undefined, 1]);
  });

  it('alternating slower and faster surprises at one size do not add up to a regime change', () => {
    const m = learnedOneMs({});
    const alternating = [10, 0.1, 10, 0.1, 10, 0.1].map((ms) => m.observe(KEY, 'gpu', FLOPS, 1, ms));
    expect(alternating).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(m.estimate(KEY, 'gpu', FLOPS, 1).ms).toBeCloseTo(1, 9);
  });

  it("a new series' first measurement is off from nothing: it starts no run of surprises", () => {
    const m = new CostModel({ warmupSamples: 0, surpriseFactor: 2, surprisesForRegimeChange: 2 });
    // 10x the prior, then 10x that twice: only the second 100 ms sample (the second surprise, against the median
    // 10 ms of the two before it) re-learns the size.
    const runs = [10, 100, 100].map((ms) => m.observe(KEY, 'gpu', FLOPS, 1, ms));
    expect(runs.slice(0, 2)).toEqual([undefined, undefined]);
    expect(runs[2]).toBeCloseTo(10, 9);
  });
});

describe('CostModel: re-learning a size', () => {
  it('observe() returns the estimate, ms at the given prior, that the run of surprises was off from', () => {
    // Learned: 2x the prior. At prior 3 ms that is 6 ms; a run of 10x slower samples re-learns the size.
    const m = new CostModel({ warmupSamples: 0, surpriseFactor: 2, surprisesForRegimeChange: 3 });
    for (let i = 0; i < 20; i++) m.observe(KEY, 'gpu', FLOPS, 3, 6);
    const run = [60, 60, 60].map((ms) => m.observe(KEY, 'gpu', FLOPS, 3, ms));
    expect(run[0]).toBeUndefined();
    expect(run[1]).toBeUndefined();
    expect(run[2]).toBeCloseTo(6, 9);
    expect(m.estimate(KEY, 'gpu', FLOPS, 3).ms).toBeCloseTo(60, 9);
  });

  it('re-learns a size from every sample of its run of surprises, the first one included', () => {
    const m = learnedOneMs({}, 50);
    const run = [64, 4, 16].map((ms) => m.observe(KEY, 'gpu', FLOPS, 1, ms));
    expect(run.map((x) => x !== undefined)).toEqual([false, false, true]);
    // The median of 64, 4 and 16 (equal weights: all at one decision count); without the first, it would be 4.
    expect(m.estimate(KEY, 'gpu', FLOPS, 1).ms).toBeCloseTo(16, 9);
  });

  it("re-learns from the run's last `window` samples only: a warm sample older than them does not come back when a cold one is dropped", () => {
    const m = learnedOneMs({ window: 2, coldSamplesSkipped: 0 }, 2);
    expect(m.observe(KEY, 'gpu', FLOPS, 1, 16)).toBeUndefined(); // surprise 1 (warm)
    expect(m.observe(KEY, 'gpu', FLOPS, 1, 16, true)).toBeUndefined(); // surprise 2 (cold, learned: none skipped)
    // Surprise 3, 4x the bucket's 16 ms: re-learned from the run's last two, the cold 16 and this warm 64. The warm
    // sample drops the cold one, which leaves 64 alone (the run's first 16 ms had left the window).
    expect(m.observe(KEY, 'gpu', FLOPS, 1, 64)).toBeCloseTo(16, 9);
    expect(m.estimate(KEY, 'gpu', FLOPS, 1).ms).toBeCloseTo(64, 9);
  });

  it('a run of surprises spanning exactly regimeMinSpanMs is long enough in time', () => {
    const m = new CostModel({ warmupSamples: 0, surpriseFactor: 2, surprisesForRegimeChange: 3, regimeMinSpanMs: 100 });
    for (let i = 0; i < 20; i++) m.observe(KEY, 'gpu', FLOPS, 1, 1, false, i);
    const run = [1000, 1050, 1100].map((atMs) => m.observe(KEY, 'gpu', FLOPS, 1, 20, false, atMs));
    expect(run.map((x) => x !== undefined)).toEqual([false, false, true]);
    expect(m.estimate(KEY, 'gpu', FLOPS, 1).ms).toBeCloseTo(20, 9);
  });

  it('a run of surprises just short of regimeMinSpanMs is not, however many samples it has', () => {
    const m = new CostModel({ warmupSamples: 0, surpriseFactor: 2, surprisesForRegimeChange: 3, regimeMinSpanMs: 100 });
    for (let i = 0; i < 50; i++) m.observe(KEY, 'gpu', FLOPS, 1, 1, false, i);
    const run = [1000, 1050, 1099, 1099.5].map((atMs) => m.observe(KEY, 'gpu', FLOPS, 1, 20, false, atMs));
    expect(run).toEqual([undefined, undefined, undefined, undefined]);
  });
});
