// topPositive against a full sort, on random vectors with ties, zeros and negatives.
import { describe, expect, it } from 'vitest';
import { topPositive } from './top-values.ts';

/** The reference: every positive index, sorted by value descending (stable: ties keep the lower index first). */
function bySort(values: Float32Array, k: number): { top: number[]; positive: number } {
  const order: number[] = [];
  for (let i = 0; i < values.length; i++) if ((values[i] ?? 0) > 0) order.push(i);
  order.sort((x, y) => (values[y] ?? 0) - (values[x] ?? 0));
  return { top: order.slice(0, k), positive: order.length };
}

describe('topPositive', () => {
  it('matches a full sort, ties to the lower index, for k from 0 to past the positives', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 50; trial++) {
      const values = Float32Array.from({ length: 1 + Math.floor(random() * 500) }, () => {
        const r = random();
        return r < 0.3 ? 0 : r < 0.4 ? -r : Math.round(r * 20) / 20; // zeros, negatives, many ties
      });
      for (const k of [0, 1, 5, 20, 100, 1000])
        expect(topPositive(values, k), `trial ${trial}, k ${k}`).toEqual(bySort(values, k));
    }
  });

  it('ignores NaN and counts only values above zero', () => {
    expect(topPositive(Float32Array.from([Number.NaN, 0, -1, 2, 1]), 10)).toEqual({ top: [3, 4], positive: 2 });
  });
});
