// A cost-model size bucket when samples leave its window: the one that leaves takes its own weight out of the median
// and its own share out of the mean work and prior (cost-bucket.ts).
import { describe, expect, it } from 'vitest';
import { Bucket, type Sample } from './cost-bucket.ts';

/** A warm sample: log2 work, log2 prior, log2 measured/prior, at decision `at`. */
const sample = (logWork: number, logPrior: number, logRatio: number, at: number): Sample => ({
  logWork,
  logPrior,
  logRatio,
  at,
  atMs: undefined,
  cold: false,
});

describe('Bucket: a sample leaving the window', () => {
  it('takes out the oldest sample, not a newer one of the same ratio, from the recency-weighted median', () => {
    const bucket = new Bucket();
    // Window 2, half-life 1 decision: a ratio-1 sample at decision 0, another at 5 (32x its weight), then 4x at 5.
    bucket.add(sample(10, 0, 0, 0), 2, 1, false);
    bucket.add(sample(10, 0, 0, 5), 2, 1, false);
    bucket.add(sample(10, 0, 2, 5), 2, 1, false); // the decision-0 sample leaves the window
    // Left: ratio 1 and ratio 4, equal weights: the lower is the median. Had the decision-5 ratio-1 sample been taken
    // out instead, the light old one and the 4x one would leave 4x as the median.
    expect(bucket.typicalLogRatio).toBe(0);
    expect(bucket.samples.map((x) => x.at)).toEqual([5, 5]);
  });

  it('with a window of one, the mean work and prior are those of the newest sample, however many decisions apart', () => {
    const bucket = new Bucket();
    bucket.add(sample(10, 1, 0, 1), 1, 1, false);
    bucket.add(sample(10.25, 3, 0, 2), 1, 1, false);
    expect(bucket.meanLogWork).toBeCloseTo(10.25, 12);
    expect(bucket.meanLogPrior).toBeCloseTo(3, 12);
    bucket.add(sample(10.5, 2, 0, 7), 1, 1, false);
    expect(bucket.meanLogWork).toBeCloseTo(10.5, 12);
    expect(bucket.meanLogPrior).toBeCloseTo(2, 12);
  });
});
