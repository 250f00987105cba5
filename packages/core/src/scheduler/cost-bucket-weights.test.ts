// A cost-model size bucket's recency weights (cost-bucket.ts): a sample `halfLife` decisions older weighs half as much
// in the median and in the mean work and prior, at any half-life and however many decisions the bucket spans; a
// warm sample drops the cold ones and keeps the warm ones; a bucket with no samples is neutral.
import { describe, expect, it } from 'vitest';
import { Bucket, NO_SURPRISES, type Sample } from './cost-bucket.ts';

/** A sample: log2 measured/prior `logRatio` at decision `at`, log2 work `logWork`, log2 prior `logPrior`. */
const sample = (logRatio: number, at: number, logWork = 10, logPrior = 0, cold = false): Sample => ({
  logWork,
  logPrior,
  logRatio,
  at,
  atMs: undefined,
  cold,
});

/** A bucket fed `samples` in order (window 100, none restarting it). */
function bucketOf(samples: readonly Sample[], halfLife: number, window = 100): Bucket {
  const bucket = new Bucket();
  for (const x of samples) bucket.add(x, window, halfLife, false);
  return bucket;
}

describe('Bucket: a bucket with no samples', () => {
  it('has a typical log-ratio of 0 (the prior as it is) and no run of surprises', () => {
    const bucket = new Bucket();
    expect(bucket.typicalLogRatio).toBe(0);
    expect(bucket.surprises).toEqual({ direction: 0, count: 0, startMs: undefined, samples: [] });
    expect(NO_SURPRISES).toEqual({ direction: 0, count: 0, startMs: undefined, samples: [] });
  });
});

describe('Bucket: recency weights at a half-life other than one decision', () => {
  it('weighs a sample one half-life newer twice as much in the mean work and prior', () => {
    // Half-life 2: the decision-0 sample weighs 1/2 of the decision-2 one.
    const bucket = bucketOf([sample(0, 0, 10, 1), sample(0, 2, 12, 4)], 2);
    expect(bucket.meanLogWork).toBeCloseTo((0.5 * 10 + 12) / 1.5, 12);
    expect(bucket.meanLogPrior).toBeCloseTo((0.5 * 1 + 4) / 1.5, 12);
  });

  it('takes the leaving sample out of the mean work and prior with its decayed weight', () => {
    // Window 1, half-life 2: the decision-0 sample (a quarter of the weight by decision 4) leaves the window.
    const bucket = bucketOf([sample(0, 0, 10, 1), sample(0, 4, 12, 3)], 2, 1);
    expect(bucket.meanLogWork).toBeCloseTo(12, 12);
    expect(bucket.meanLogPrior).toBeCloseTo(3, 12);
  });

  it('weighs a sample one half-life newer twice as much in the median', () => {
    // Half-life 2: three ratio-1 samples at decision 0 (weight 1 each) against one 2x sample at decision 2
    // (weight 2): the older ones are still the heavier half. A second 2x sample tips it.
    const samples = [sample(0, 0), sample(0, 0), sample(0, 0), sample(1, 2)];
    expect(bucketOf(samples, 2).typicalLogRatio).toBe(0);
    expect(bucketOf([...samples, sample(1, 2)], 2).typicalLogRatio).toBe(1);
  });
});

describe('Bucket: recency weights over many half-lives', () => {
  it('weighs the first samples of a bucket that starts late in the op by recency too', () => {
    // A size first measured at decision 600 (half-life 1): the decision-601 sample weighs twice the other.
    expect(bucketOf([sample(0, 600), sample(1, 601)], 1).typicalLogRatio).toBe(1);
  });

  it.each([
    [1, 2000],
    [0.5, 1000],
    [2, 4000],
  ])(
    'at half-life %s, samples more than 1024 half-lives (%s decisions) after the first still weigh by recency',
    (halfLife, gap) => {
      // 2^(gap/halfLife) would overflow a double: the two new samples (the later one heavier) must still decide the
      // median, with the old 8x sample weighing next to nothing.
      const bucket = bucketOf([sample(3, 0), sample(1, gap), sample(2, gap + 1)], halfLife);
      expect(bucket.typicalLogRatio).toBe(2);
      expect(bucket.samples.map((x) => x.at)).toEqual([0, gap, gap + 1]);
    },
  );

  it('keeps the relative weights of the samples before one that comes more than 500 half-lives after the first', () => {
    // Half-life 2. Decision 0: two samples (1/2x and 512x) that will weigh next to nothing. Decision 1000
    // (500 half-lives later): 2x, 4x, 8x. Decision 1002 (one half-life later still): 1x, twice as heavy as each of
    // the three. Weights 1 (1x), 1/2 (2x), 1/2 (4x), 1/2 (8x): the median is 2x. Had the older samples' weights been
    // lost, it would be 1x; had the newest been lost, 4x.
    const samples = [sample(-1, 0), sample(9, 0), sample(1, 1000), sample(2, 1000), sample(3, 1000), sample(0, 1002)];
    expect(bucketOf(samples, 2).typicalLogRatio).toBe(1);
  });
});

describe('Bucket: a warm sample after cold ones', () => {
  it('drops the cold samples and keeps every warm one before them, in order', () => {
    const bucket = bucketOf(
      [sample(0, 0), sample(0, 1, 11), sample(3, 2, 14, 0, true), sample(3, 3, 14, 0, true), sample(0, 4)],
      1,
    );
    expect(bucket.samples.map((x) => x.at)).toEqual([0, 1, 4]);
    expect(bucket.typicalLogRatio).toBe(0);
    // Weights 1/16, 1/8, 1 for decisions 0, 1, 4.
    expect(bucket.meanLogWork).toBeCloseTo((10 / 16 + 11 / 8 + 10) / (1 / 16 + 1 / 8 + 1), 12);
  });
});
