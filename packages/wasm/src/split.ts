// How the op runners cut work for threads: contiguous ranges, aligned to a granule, only when it pays.

/** Below this much arithmetic (2 * M * K * N for a matmul) an op stays on one thread: its work is then only a few
 *  times a postMessage round trip (docs/decisions.md, issue 29). */
export const PARALLEL_MIN_FLOPS = 8e6;

/** [begin, end) ranges covering [0, total) in `parts` pieces whose boundaries are multiples of `granule`; empty pieces dropped. */
export function splitRange(total: number, parts: number, granule = 1): Array<readonly [number, number]> {
  const ranges: Array<readonly [number, number]> = [];
  const units = Math.ceil(total / granule);
  let begin = 0;
  for (let p = 0; p < parts; p++) {
    const end = Math.min(total, Math.round((units * (p + 1)) / parts) * granule);
    if (end > begin) ranges.push([begin, end]);
    begin = Math.max(begin, end);
  }
  return ranges;
}

/** How many threads an op of `flops` work over `rows` splittable rows should use. */
export function threadsFor(available: number, flops: number, rows: number, minRowsPerThread: number): number {
  if (available <= 1 || flops < PARALLEL_MIN_FLOPS) return 1;
  return Math.max(1, Math.min(available, Math.floor(rows / minRowsPerThread)));
}
