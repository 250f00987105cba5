// CostModel at the edges of what it measured: learnedMs() exactly at the smallest and largest measured sizes and from a
// size measured at zero work, and the count of measurements learned from (what the engine's profile saving watches).
import { describe, expect, it } from 'vitest';
import { CostModel } from './cost-model.ts';

const KEY = 'matmul|f32';

/** Sizes at log2(work + 1) = 10 and 20, priors 2 and 8 ms, each measured at exactly its prior (learned ratio 1). */
function twoSizes(): CostModel {
  const m = new CostModel({ warmupSamples: 0 });
  m.observe(KEY, 'gpu', 2 ** 10 - 1, 2, 2);
  m.observe(KEY, 'gpu', 2 ** 20 - 1, 8, 8);
  return m;
}

describe('CostModel.learnedMs exactly at the measured end sizes', () => {
  it('prices the smallest measured size at no less than launchMs, as just below it', () => {
    // Its prior (2 ms) is below the 5 ms launch: at and below that size the estimate is the launch time.
    expect(twoSizes().learnedMs(KEY, 'gpu', 2 ** 10 - 1, 5)).toBeCloseTo(5, 9);
    expect(twoSizes().learnedMs(KEY, 'gpu', 2 ** 10 - 2, 5)).toBeCloseTo(5, 9);
  });

  it('prices the largest measured size at no less than launchMs, as just above it', () => {
    // Its prior (8 ms) is below the 12 ms launch.
    expect(twoSizes().learnedMs(KEY, 'gpu', 2 ** 20 - 1, 12)).toBeCloseTo(12, 9);
    expect(twoSizes().learnedMs(KEY, 'gpu', 2 ** 20, 12)).toBeCloseTo(12, 9);
  });
});

describe('CostModel.learnedMs from a size measured at zero work', () => {
  it("prices a larger call at that size's prior (above launchMs), not at an infinite or undefined time", () => {
    const m = new CostModel({ warmupSamples: 0 });
    m.observe(KEY, 'gpu', 0, 3, 3); // a zero-work call: prior 3 ms, measured 3 ms
    expect(m.learnedMs(KEY, 'gpu', 1000, 1)).toBeCloseTo(3, 9);
    expect(m.learnedMs(KEY, 'gpu', 1000, 5)).toBeCloseTo(5, 9); // prior below the launch: the launch
    expect(m.learnedMs(KEY, 'gpu', 0, 1)).toBeCloseTo(3, 9);
  });
});

describe('CostModel.learned', () => {
  it('counts the measurements learned from, over every series, warm-up and skipped cold runs excluded', () => {
    const m = new CostModel({ warmupSamples: 1, coldSamplesSkipped: 1 });
    expect(m.learned).toBe(0);
    m.observe(KEY, 'gpu', 1e6, 1, 1); // warm-up: not learned from
    expect(m.learned).toBe(0);
    m.observe(KEY, 'gpu', 1e6, 1, 1);
    m.observe(KEY, 'gpu', 1e6, 1, 1, true); // cold, skipped
    m.observe(KEY, 'gpu', 2e6, 1, 1);
    m.observe(KEY, 'cpu', 1e6, 1, 1); // warm-up on the cpu
    m.observe(KEY, 'cpu', 1e6, 1, 1);
    m.observe('add|f32', 'cpu', 1e3, 1, 1);
    m.observe('add|f32', 'cpu', 1e3, 1, 1);
    expect(m.learned).toBe(4);
  });
});
