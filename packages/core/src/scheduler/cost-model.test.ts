import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';
import { COLD_CALLS_AFTER_IDLE } from './warmth.ts';

const KEY = 'matmul|f32';

/** Whether an observe() re-learned its size (it then returns the estimate it was off from). */
const relearned = (offFromMs: number | undefined): boolean => offFromMs !== undefined;

describe('CostModel', () => {
  it('returns the prior until something is measured', () => {
    const m = new CostModel();
    expect(m.estimate(KEY, 'wasm', 1e6, 0.5)).toEqual({ ms: 0.5, measured: false });
    expect(m.decisionsSinceMeasured(KEY, 'wasm')).toBe(Infinity);
  });

  it('corrects the prior by the measured ratio, everywhere when one bucket is known', () => {
    const m = new CostModel();
    for (let i = 0; i < 10; i++) m.observe(KEY, 'wasm', 1e6, 1, 3);
    expect(m.estimate(KEY, 'wasm', 1e6, 1).ms).toBeCloseTo(3, 9);
    expect(m.estimate(KEY, 'wasm', 1e9, 100).ms).toBeCloseTo(300, 6); // nearest bucket's correction
    expect(m.estimate(KEY, 'webgpu', 1e6, 1).measured).toBe(false); // per backend
    expect(m.estimate('add|f32', 'wasm', 1e6, 1).measured).toBe(false); // per op
  });

  it('does not learn from the first (warm-up) run', () => {
    const m = new CostModel();
    m.observe(KEY, 'wasm', 1e6, 1, 500); // cold: JIT, instantiation
    expect(m.estimate(KEY, 'wasm', 1e6, 1)).toEqual({ ms: 1, measured: false });
    expect(m.decisionsSinceMeasured(KEY, 'wasm')).toBe(0);
    m.observe(KEY, 'wasm', 1e6, 1, 2);
    expect(m.estimate(KEY, 'wasm', 1e6, 1)).toEqual({ ms: 2, measured: true });
  });

  it('interpolates the correction between measured buckets in log space', () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.observe(KEY, 'wasm', 2 ** 10 - 1, 1, 1); // ratio 1 at log2(work + 1) = 10
    m.observe(KEY, 'wasm', 2 ** 20 - 1, 1, 4); // ratio 4 at 20
    expect(m.estimate(KEY, 'wasm', 2 ** 15 - 1, 1).ms).toBeCloseTo(2, 9); // halfway in log: 2
  });

  it('keeps at most `window` samples per bucket, weighting recent decisions more', () => {
    const m = new CostModel({ window: 4, halfLifeDecisions: 1, warmupSamples: 0 });
    for (let i = 0; i < 4; i++) m.observe(KEY, 'wasm', 1e6, 1, 1);
    for (let i = 0; i < 10; i++) m.tick(KEY);
    m.observe(KEY, 'wasm', 1e6, 1, 2); // 10 half-lives newer: dominates
    expect(m.estimate(KEY, 'wasm', 1e6, 1).ms).toBeGreaterThan(1.99);
  });

  it('re-learns a size after consecutive surprises there, and keeps the other sizes', () => {
    const m = new CostModel({ surpriseFactor: 2, surprisesForRegimeChange: 3 });
    for (let i = 0; i < 50; i++) {
      m.observe(KEY, 'gpu', 1e4, 1, 10);
      m.observe(KEY, 'gpu', 1e8, 1, 1);
    }
    const started = [0, 1, 2].map(() => m.observe(KEY, 'gpu', 1e8, 1, 0.1)); // 10x faster now at this size
    expect(started.map(relearned)).toEqual([false, false, true]); // the third surprise in a row drops the bucket's old samples
    // It says what it was off from: the median of the bucket's 50 samples of 1 ms and the first two surprises.
    expect(started[2]).toBeCloseTo(1, 6);
    expect(m.estimate(KEY, 'gpu', 1e8, 1).ms).toBeCloseTo(0.1, 6);
    // The small size keeps its own measurements: it is not priced from the large one's new correction.
    expect(m.estimate(KEY, 'gpu', 1e4, 1).ms).toBeCloseTo(10, 6);
    // Its own run of surprises re-learns it too.
    const small = [0, 1, 2].map(() => m.observe(KEY, 'gpu', 1e4, 1, 1));
    expect(small.map(relearned)).toEqual([false, false, true]);
    expect(m.estimate(KEY, 'gpu', 1e4, 1).ms).toBeCloseTo(1, 6);
  });

  it('counts surprises per size: alternating sizes do not add up to a regime change', () => {
    const m = new CostModel({ surpriseFactor: 2, surprisesForRegimeChange: 3 });
    for (let i = 0; i < 20; i++) {
      m.observe(KEY, 'gpu', 1e4, 1, 1);
      m.observe(KEY, 'gpu', 1e8, 1, 1);
    }
    const started = [1e4, 1e8, 1e4, 1e8].map((flops) => m.observe(KEY, 'gpu', flops, 1, 10));
    expect(started.map(relearned)).toEqual([false, false, false, false]);
  });

  it('does not treat a lone outlier as a regime change', () => {
    const m = new CostModel({ window: 100 });
    for (let i = 0; i < 50; i++) m.observe(KEY, 'wasm', 1e6, 1, 1);
    m.observe(KEY, 'wasm', 1e6, 1, 50); // one GC pause
    m.observe(KEY, 'wasm', 1e6, 1, 1);
    expect(m.estimate(KEY, 'wasm', 1e6, 1).ms).toBeLessThan(1.1);
  });

  it('re-learns a size from the whole run of surprises, not only the last of them', () => {
    const m = new CostModel({ surpriseFactor: 2, surprisesForRegimeChange: 3 });
    for (let i = 0; i < 50; i++) m.observe(KEY, 'gpu', 1e6, 1, 1);
    const started = [4, 4, 16].map((ms) => m.observe(KEY, 'gpu', 1e6, 1, ms));
    expect(started.map(relearned)).toEqual([false, false, true]);
    // The median of 4, 4 and 16 (the three samples, all taken at one decision count), not the last one's 16.
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(4, 6);
  });

  it('skips cold samples (calls just after an idle host) unless they are all there is', () => {
    const m = new CostModel({ coldSamplesSkipped: 3 });
    for (let i = 0; i < 20; i++) m.observe(KEY, 'gpu', 1e6, 1, 1);
    for (let i = 0; i < 3; i++) expect(m.observe(KEY, 'gpu', 1e6, 1, 100, true)).toBeUndefined();
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(1, 6);
    expect(m.sampleCount(KEY, 'gpu')).toBe(19); // the first of the 20 was the warm-up
    m.observe(KEY, 'gpu', 1e6, 1, 1); // a warm sample ends the run of cold ones
    for (let i = 0; i < 3; i++) m.observe(KEY, 'gpu', 1e6, 1, 100, true);
    expect(m.sampleCount(KEY, 'gpu')).toBe(20);
    // A fourth cold sample in a row: the workload looks always cold, and it is learned from.
    m.observe(KEY, 'gpu', 1e6, 1, 100, true);
    expect(m.sampleCount(KEY, 'gpu')).toBe(21);
    // Cold calls go on: once they are most of what the bucket holds, they are its typical time.
    for (let i = 0; i < 30; i++) m.observe(KEY, 'gpu', 1e6, 1, 100, true);
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(100, 6);
  });

  it('prices a size by its typical call, not its mean: a slow call after each switch of ops does not pull it up', () => {
    const m = new CostModel();
    // Blocks of 16 calls: the first after another op ran takes 9x, the rest 1x (the dispatch suite's wasm scale 1x1024).
    for (let block = 0; block < 6; block++)
      for (let i = 0; i < 16; i++) m.observe(KEY, 'wasm', 1e3, 1, i === 0 ? 9 : 1);
    expect(m.estimate(KEY, 'wasm', 1e3, 1).ms).toBeCloseTo(1, 6); // a mean of logs would say 2^(log2(9)/16) = 1.15
  });

  it('drops cold samples it learned once a warm one comes (training calls after pauses, then a hot loop)', () => {
    const m = new CostModel({ coldSamplesSkipped: 3 });
    m.observe(KEY, 'gpu', 1e6, 1, 1); // warm-up
    for (let i = 0; i < 10; i++) m.observe(KEY, 'gpu', 1e6, 1, 4, true); // only cold calls: learned past the third
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(4, 6);
    m.observe(KEY, 'gpu', 1e6, 1, 1); // the first warm call
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(1, 6);
    // Other sizes keep their cold samples until their own warm calls come.
    for (let i = 0; i < 10; i++) m.observe(KEY, 'gpu', 1e9, 1000, 4000, true);
    m.observe(KEY, 'gpu', 1e6, 1, 1);
    expect(m.estimate(KEY, 'gpu', 1e9, 1000).ms).toBeCloseTo(4000, 3);
  });

  it('re-learns a size only when its run of surprises also spans regimeMinSpanMs: a short stall is not a regime change', () => {
    const m = new CostModel({ surpriseFactor: 2, surprisesForRegimeChange: 3, regimeMinSpanMs: 100 });
    let now = 0;
    for (let i = 0; i < 50; i++) m.observe(KEY, 'gpu', 1e6, 1, 1, false, (now += 1));
    // A stall: six calls 20x slower within 12 ms.
    const stall = Array.from({ length: 6 }, () => m.observe(KEY, 'gpu', 1e6, 1, 20, false, (now += 2)));
    expect(stall.map(relearned)).toEqual([false, false, false, false, false, false]);
    for (let i = 0; i < 5; i++) m.observe(KEY, 'gpu', 1e6, 1, 1, false, (now += 1));
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeLessThan(2);
    // A lasting change: 20x slower for 180 ms. The first sample 100 ms or more after the first surprise re-learns
    // the size (the fifth, at +120 ms).
    const lasting = Array.from({ length: 6 }, () => m.observe(KEY, 'gpu', 1e6, 1, 20, false, (now += 30)));
    expect(lasting.map(relearned)).toEqual([false, false, false, false, true, false]);
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(20, 6);
  });
});

describe('CostModel: interpolation, profiles and forgetting', () => {
  /** A model with one sample per size: [log2(work + 1), measured / prior] (prior 1 ms, no warm-up run). */
  const measured = (sizes: ReadonlyArray<readonly [number, number]>): CostModel => {
    const m = new CostModel({ warmupSamples: 0 });
    for (const [logWork, ratio] of sizes) m.observe(KEY, 'gpu', 2 ** logWork - 1, 1, ratio);
    return m;
  };

  it("keeps the smallest size's correction below it and the largest's above it (no extrapolation)", () => {
    const m = measured([
      [10, 1],
      [20, 4],
    ]);
    expect(m.estimate(KEY, 'gpu', 2 ** 5 - 1, 1).ms).toBeCloseTo(1, 9);
    expect(m.estimate(KEY, 'gpu', 2 ** 25 - 1, 1).ms).toBeCloseTo(4, 9);
  });

  it('interpolates between the two measured sizes around the work, among several', () => {
    const m = measured([
      [10, 1],
      [15, 8],
      [20, 1],
    ]);
    // log2 ratios 0, 3, 0 at 10, 15, 20: halfway between 10 and 15 is 1.5, between 15 and 20 too.
    expect(m.estimate(KEY, 'gpu', 2 ** 12.5 - 1, 1).ms).toBeCloseTo(2 ** 1.5, 9);
    expect(m.estimate(KEY, 'gpu', 2 ** 17.5 - 1, 1).ms).toBeCloseTo(2 ** 1.5, 9);
    expect(m.estimate(KEY, 'gpu', 2 ** 15 - 1, 1).ms).toBeCloseTo(8, 9);
  });

  it('learnedMs() prices a size between measured ones from their interpolated prior times the learned ratio', () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.observe(KEY, 'gpu', 2 ** 10 - 1, 1, 2); // prior 1 ms, measured 2 ms
    m.observe(KEY, 'gpu', 2 ** 20 - 1, 1024, 2048); // prior 1024 ms, measured 2048 ms
    // Halfway in log work: prior 2^5 = 32 ms (log-interpolated), times the ratio 2.
    expect(m.learnedMs(KEY, 'gpu', 2 ** 15 - 1, 0)).toBeCloseTo(64, 6);
    expect(m.learnedMs(KEY, 'cpu', 2 ** 15 - 1, 0)).toBeUndefined();
  });

  it('seeds profile sizes given in any order, smallest first', () => {
    const m = new CostModel();
    m.seed([
      {
        opKey: KEY,
        backend: 'gpu',
        sizes: [
          [20, 0, 2],
          [10, 0, 0],
        ],
      },
    ]);
    expect(m.estimate(KEY, 'gpu', 2 ** 5 - 1, 1).ms).toBeCloseTo(1, 9); // below the smallest: its ratio, 2^0
    expect(m.estimate(KEY, 'gpu', 2 ** 25 - 1, 1).ms).toBeCloseTo(4, 9); // above the largest: 2^2
    expect(m.snapshot()[0]?.sizes.map(([logWork]) => logWork)).toEqual([10, 20]);
  });

  it("keeps a profile's sample when the first warm measurement comes (it is not a cold sample)", () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.seed([{ opKey: KEY, backend: 'gpu', sizes: [[20, 0, 0]] }]); // 1 ms at 2^20 work
    m.observe(KEY, 'gpu', 2 ** 20 - 1, 1, 2); // 2 ms: within the surprise factor, learned next to the profile's 1 ms
    // Two samples of equal weight: the lower one is the median. Dropping the profile's would say 2 ms.
    expect(m.estimate(KEY, 'gpu', 2 ** 20 - 1, 1).ms).toBeCloseTo(1, 9);
  });

  it('forget() drops everything measured for a backend, on every op, and only for it', () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.observe(KEY, 'gpu', 1e6, 1, 3);
    m.observe('add|f32', 'gpu', 1e6, 1, 3);
    m.observe(KEY, 'cpu', 1e6, 1, 2);
    m.forget('gpu');
    expect(m.estimate(KEY, 'gpu', 1e6, 1)).toEqual({ ms: 1, measured: false });
    expect(m.estimate('add|f32', 'gpu', 1e6, 1)).toEqual({ ms: 1, measured: false });
    expect(m.sampleCount(KEY, 'gpu')).toBe(0);
    expect(m.estimate(KEY, 'cpu', 1e6, 1)).toEqual({ ms: 2, measured: true });
  });

  it('re-learns a size from the last `window` samples of the run of surprises', () => {
    const m = new CostModel({ window: 2, surpriseFactor: 2.5, surprisesForRegimeChange: 3, warmupSamples: 0 });
    m.observe(KEY, 'gpu', 1e6, 1, 1);
    m.observe(KEY, 'gpu', 1e6, 1, 1);
    // Each is a surprise against the bucket's median when it comes: 16 vs 1, 16 vs 1, 64 vs 16.
    const run = [16, 16, 64].map((ms) => m.observe(KEY, 'gpu', 1e6, 1, ms));
    expect(run.map(relearned)).toEqual([false, false, true]);
    // Re-learned from the last two of the run, 16 and 64 (equal weights: the lower one is the median).
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(16, 6);
  });

  it('drops the cold samples a size still holds at the first warm call, also after older samples left its window', () => {
    const m = new CostModel({ window: 3, coldSamplesSkipped: 0, warmupSamples: 0 });
    for (let i = 0; i < 3; i++) m.observe(KEY, 'gpu', 1e6, 1, 1);
    // Two cold calls (learned: coldSamplesSkipped 0) push two warm samples out of the window.
    m.observe(KEY, 'gpu', 1e6, 1, 2, true);
    m.observe(KEY, 'gpu', 1e6, 1, 2, true);
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(2, 6);
    m.observe(KEY, 'gpu', 1e6, 1, 1); // warm: the cold ones go, the warm ones stay
    expect(m.estimate(KEY, 'gpu', 1e6, 1).ms).toBeCloseTo(1, 6);
  });
});

describe('CostModel.profileCheckDue', () => {
  const seeded = (): CostModel => {
    const model = new CostModel();
    model.seed([{ opKey: 'add|f32', backend: 'gpu', sizes: [[20, 0, 3]] }]);
    return model;
  };
  const tick = (model: CostModel, n: number): void => {
    for (let i = 0; i < n; i++) model.tick('add|f32');
  };

  it('is due `every` decisions after the seed, right after the warm-up, and ends once a run is learned', () => {
    const model = seeded();
    tick(model, 49);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(false);
    tick(model, 1);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1); // the warm-up: not learned
    tick(model, 1);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1); // learned: the profile is checked
    tick(model, 100);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(false);
  });

  it('is due again after each cold check run up to COLD_CALLS_AFTER_IDLE + 1 of them, then waits `every` decisions', () => {
    const model = seeded();
    tick(model, 50);
    model.observe('add|f32', 'gpu', 2 ** 20, 1, 1); // warm-up
    for (let cold = 1; cold <= COLD_CALLS_AFTER_IDLE + 1; cold++) {
      tick(model, 1);
      expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
      model.observe('add|f32', 'gpu', 2 ** 20, 1, 1, true); // cold: skipped
    }
    tick(model, 1);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(false);
    tick(model, 49);
    expect(model.profileCheckDue('add|f32', 'gpu', 50)).toBe(true);
  });

  it('seeds nothing for a series measured here or given no sizes, and lists no key for them', () => {
    const model = new CostModel();
    tick(model, 1);
    model.observe('add|f32', 'cpu', 2 ** 20, 1, 1);
    model.observe('add|f32', 'cpu', 2 ** 20, 1, 1);
    expect(
      model.seed([
        { opKey: 'add|f32', backend: 'cpu', sizes: [[20, 0, 3]] },
        { opKey: 'mul|f32', backend: 'gpu', sizes: [] },
      ]),
    ).toBe(0);
    expect(model.keysOf('mul')).toEqual([]);
    expect(model.estimate('add|f32', 'cpu', 2 ** 20, 1).ms).toBeCloseTo(1, 6); // its own measurement, not 2^3
  });
});
