// Single-query throughput and recall@10 of an ANN index at several ef values (one query at a time, one thread).
import { stats } from '../stats.ts';
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

/** Runs every query once untimed (warm-up and recall), then `passes` timed passes; per ef. */
export function sweep(searcher: Searcher, queryCount: number, truth: readonly number[][], efs: readonly number[], passes: number): SweepPoint[] {
  const points: SweepPoint[] = [];
  for (const ef of efs) {
    searcher.setEf(ef);
    const answers: number[][] = [];
    for (let q = 0; q < queryCount; q++) answers.push(searcher.search(q, 10));
    const rates: number[] = [];
    for (let p = 0; p < passes; p++) {
      const start = performance.now();
      for (let q = 0; q < queryCount; q++) searcher.search(q, 10);
      rates.push(queryCount / ((performance.now() - start) / 1000));
    }
    points.push({ ef, recall: recallAt(truth, answers), qps: stats(rates).median });
  }
  return points;
}

/** The first point (smallest ef) whose recall reaches `target`, if any. */
export function firstReaching(points: readonly SweepPoint[], target: number): SweepPoint | undefined {
  return points.find((p) => p.recall >= target);
}
