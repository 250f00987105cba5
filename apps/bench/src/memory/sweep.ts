// Single-query throughput and recall@10 of ANN indexes at several ef values (one query at a time, one thread), the
// indexes measured side by side.
import { sampleStats } from '@tandem/core';
import { recallAt } from './recall.ts';

/** An index under test: set its search list size, answer one query. */
export interface Searcher {
  /** Name in the rows. */
  readonly name: string;
  /** Sets the search list size for the following searches. */
  setEf(ef: number): void;
  /** Top-k indices of query q (queries are prepared by the caller, outside the timing). */
  search(q: number, k: number): number[];
}

/** One ef of the sweep. */
export interface SweepPoint {
  /** Search list size. */
  readonly ef: number;
  /** recall@10 against brute force. */
  readonly recall: number;
  /** Queries per second, median of the timed passes. */
  readonly qps: number;
}

/**
 * Per ef: every searcher answers every query once untimed (warm-up and recall), then `passes` timed passes of each,
 * side by side: pass p runs the searchers in order when p is even and in reverse when odd (ABBA...), so a drift in
 * the machine's speed during the sweep falls on all of them alike. Returns each searcher's points, in its order.
 */
export function sweepSideBySide(
  searchers: readonly Searcher[],
  queryCount: number,
  truth: readonly number[][],
  efs: readonly number[],
  passes: number,
): SweepPoint[][] {
  const points: SweepPoint[][] = searchers.map(() => []);
  for (const ef of efs) {
    const recalls = searchers.map((searcher) => {
      searcher.setEf(ef);
      const answers: number[][] = [];
      for (let q = 0; q < queryCount; q++) answers.push(searcher.search(q, 10));
      return recallAt(truth, answers);
    });
    const rates: number[][] = searchers.map(() => []);
    for (let p = 0; p < passes; p++) {
      const order = searchers.map((_, i) => (p % 2 === 0 ? i : searchers.length - 1 - i));
      for (const i of order) {
        const searcher = searchers[i];
        if (searcher === undefined) continue;
        searcher.setEf(ef);
        const start = performance.now();
        for (let q = 0; q < queryCount; q++) searcher.search(q, 10);
        rates[i]?.push(queryCount / ((performance.now() - start) / 1000));
      }
    }
    searchers.forEach((_, i) => {
      points[i]?.push({ ef, recall: recalls[i] ?? 0, qps: sampleStats(rates[i] ?? []).median });
    });
  }
  return points;
}

/** The first point (smallest ef) whose recall reaches `target`, if any. */
export function firstReaching(points: readonly SweepPoint[], target: number): SweepPoint | undefined {
  return points.find((p) => p.recall >= target);
}
