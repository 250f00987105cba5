/** Summary statistics of repeated measurements. */
export interface Stats {
  /** Median, same unit as the samples. */
  readonly median: number;
  /** Smallest sample. */
  readonly min: number;
  /** Largest sample. */
  readonly max: number;
  /** 99th percentile (nearest rank). */
  readonly p99: number;
  /** Number of samples. */
  readonly reps: number;
}

/** Median, min, max and p99 of samples. */
export function stats(samples: readonly number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? 0;
  return { median: at(0.5), min: s[0] ?? 0, max: s[s.length - 1] ?? 0, p99: at(0.99), reps: s.length };
}
