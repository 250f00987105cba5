// The one definition of a median and a percentile in the tree: the engine's latency percentiles, its copy times,
// the graph's candidate runs, the bench's figures and the server's load test all summarise samples with these.
//
// The q-quantile of n samples is the sample of rank floor(q * n) + 1 in ascending order (capped at n): the smallest
// sample with more than a share q of the samples at or below it. Always one of the samples, never interpolated; the
// median is the 0.5-quantile, so of an even count it is the upper of the two middle samples (of [1, 2, 3, 4]: 3);
// the 99th percentile of fewer than 100 samples is the largest. No samples: NaN. (The scheduler's copy times and
// the graph's candidate runs took the upper middle already; the latency percentiles and the bench, which took the
// lower one by nearest rank, now agree with them.)

/** Summary of repeated measurements (same unit as the samples). */
export interface SampleStats {
  /** The median (percentile 0.5). */
  readonly median: number;
  /** The smallest sample. */
  readonly min: number;
  /** The largest sample. */
  readonly max: number;
  /** The 99th percentile. */
  readonly p99: number;
  /** How many samples. */
  readonly count: number;
}

/** The q-quantile (q in [0, 1]) of samples already in ascending order, as defined above; NaN when there are none. */
export function percentileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)));
  return sorted[index] ?? Number.NaN;
}

/** The q-quantile (q in [0, 1]) of `values` in any order, as defined above; NaN when there are none. */
export function percentile(values: readonly number[], q: number): number {
  return percentileOfSorted(ascending(values), q);
}

/** The median of `values` (the upper middle sample of an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Median, min, max and 99th percentile of `values`, sorting once (NaN for each with no samples). */
export function sampleStats(values: readonly number[]): SampleStats {
  const sorted = ascending(values);
  return {
    median: percentileOfSorted(sorted, 0.5),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    p99: percentileOfSorted(sorted, 0.99),
    count: sorted.length,
  };
}

function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
