import { describe, expect, it } from 'vitest';
import { median, percentile, percentileOfSorted, sampleStats } from './stats.ts';

describe('percentile and median: the sample of rank floor(q n) + 1', () => {
  it('is the smallest sample with more than a share q at or below it, never interpolated', () => {
    const values = [50, 10, 40, 20, 30]; // sorted: 10 20 30 40 50
    expect(percentile(values, 0.19)).toBe(10); // 1 of 5 (0.2) at or below 10
    expect(percentile(values, 0.2)).toBe(20); // 0.2 is not more than 0.2: 20 (0.4)
    expect(percentile(values, 0.5)).toBe(30);
    expect(percentile(values, 0.99)).toBe(50);
  });

  it('gives the smallest sample for q = 0 and the largest for q >= 1', () => {
    expect(percentile([3, 1, 2], 0)).toBe(1);
    expect(percentile([3, 1, 2], 1)).toBe(3);
    expect(percentile([3, 1, 2], 1.5)).toBe(3);
  });

  it('takes the upper middle sample as the median of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([7, 9])).toBe(9);
    expect(median([5])).toBe(5);
  });

  it('gives the 99th percentile of 100 samples as the largest, of 1000 as the 991st smallest', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, reversed
    expect(percentile(hundred, 0.99)).toBe(100);
    const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(thousand, 0.99)).toBe(991);
  });

  it('is NaN with no samples', () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(median([])).toBeNaN();
    expect(percentileOfSorted([], 0.99)).toBeNaN();
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('summarises samples with the same definition', () => {
    expect(sampleStats([5, 1, 4, 2, 3, 6])).toEqual({ median: 4, min: 1, max: 6, p99: 6, count: 6 });
    expect(sampleStats([])).toEqual({ median: NaN, min: NaN, max: NaN, p99: NaN, count: 0 });
  });
});
