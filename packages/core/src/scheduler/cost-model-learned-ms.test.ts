// CostModel.learnedMs(): the time a backend is estimated to take at a size, with the prior taken from the measured
// sizes' own priors (what the engine's gpuSpeedup telemetry and the warm-up example list compare backends by).
import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';

const KEY = 'matmul|f32';

/**
 * A model with one sample per size, each measured at exactly its prior (learned ratio 1), so learnedMs() is the
 * prior it derives: sizes at log2(work + 1) = 10, 20 and 30 with priors 2, 8 and 16 ms (log2: 1, 3, 4; not a line).
 */
function threeSizes(): CostModel {
  const m = new CostModel({ warmupSamples: 0 });
  for (const [logWork, priorMs] of [
    [10, 2],
    [20, 8],
    [30, 16],
  ] as const)
    m.observe(KEY, 'gpu', 2 ** logWork - 1, priorMs, priorMs);
  return m;
}

describe('CostModel.learnedMs between measured sizes', () => {
  it('interpolates the log prior between the two measured sizes around the work: between the first two', () => {
    // Halfway between 10 and 20 in log work: log2 prior halfway between 1 and 3, 2 ms -> 4 ms.
    expect(threeSizes().learnedMs(KEY, 'gpu', 2 ** 15 - 1, 0)).toBeCloseTo(4, 9);
  });

  it('interpolates the log prior between the two measured sizes around the work: between the last two', () => {
    // Halfway between 20 and 30: log2 prior halfway between 3 and 4, 2^3.5 ms (not from the first size's prior).
    expect(threeSizes().learnedMs(KEY, 'gpu', 2 ** 25 - 1, 0)).toBeCloseTo(2 ** 3.5, 9);
    // A quarter of the way from 20 to 30.
    expect(threeSizes().learnedMs(KEY, 'gpu', 2 ** 22.5 - 1, 0)).toBeCloseTo(2 ** 3.25, 9);
  });

  it('multiplies the interpolated prior by the learned correction there', () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.observe(KEY, 'gpu', 2 ** 10 - 1, 2, 4); // prior 2 ms, measured 2x
    m.observe(KEY, 'gpu', 2 ** 20 - 1, 8, 32); // prior 8 ms, measured 4x
    // Halfway: prior 2^2 = 4 ms, correction 2^1.5 (halfway between 2^1 and 2^2 in log).
    expect(m.learnedMs(KEY, 'gpu', 2 ** 15 - 1, 0)).toBeCloseTo(4 * 2 ** 1.5, 9);
  });
});

describe('CostModel.learnedMs at and beyond the measured sizes', () => {
  it("prices the smallest measured size at exactly its own prior, not the largest's scaled down", () => {
    expect(threeSizes().learnedMs(KEY, 'gpu', 2 ** 10 - 1, 0)).toBeCloseTo(2, 9);
    expect(threeSizes().learnedMs(KEY, 'gpu', 2 ** 30 - 1, 0)).toBeCloseTo(16, 9);
  });

  it("below the smallest size scales the smallest size's prior with the work", () => {
    // 31 flops: the smallest size's 2 ms times 31 / 1023 of its work.
    expect(threeSizes().learnedMs(KEY, 'gpu', 31, 0)).toBeCloseTo((2 * 31) / 1023, 12);
  });

  it("above the largest size scales only the part of the largest size's prior above launchMs", () => {
    // Twice the largest work (2^31 - 1 vs 2^30 - 1): launch 1 ms + (16 - 1) ms x the work ratio.
    const flops = 2 ** 31 - 1;
    expect(threeSizes().learnedMs(KEY, 'gpu', flops, 1)).toBeCloseTo(1 + 15 * (flops / (2 ** 30 - 1)), 9);
  });

  it('is undefined for a backend that only had its warm-up run, or was never run', () => {
    const m = new CostModel();
    m.observe(KEY, 'gpu', 1e6, 1, 1); // warm-up: not learned
    expect(m.learnedMs(KEY, 'gpu', 1e6, 0)).toBeUndefined();
    expect(m.learnedMs(KEY, 'cpu', 1e6, 0)).toBeUndefined();
    expect(m.learnedMs('add|f32', 'gpu', 1e6, 0)).toBeUndefined();
  });
});
