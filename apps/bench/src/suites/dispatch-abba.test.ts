// The dispatch suite's auto-vs-best ratio from ABBA-ordered block pairs: a cost of going first cancels.
import { describe, expect, it } from 'vitest';
import { abbaRatio, callAbbaRatios } from './dispatch.ts';

/** 24 pairs in ABBA order (auto first in even pairs) of a strategy pair whose first block pays `firstCost`. */
function pairs(autoMs: number, bestMs: number, firstCost: number): Array<{ best: number; auto: number }> {
  return Array.from({ length: 24 }, (_, k) => (k % 2 === 0 ? { auto: autoMs * firstCost, best: bestMs } : { auto: autoMs, best: bestMs * firstCost }));
}

describe('abbaRatio', () => {
  it('cancels a cost of going first', () => {
    expect(abbaRatio(pairs(1, 1, 1.1))).toBeCloseTo(1, 12);
    expect(abbaRatio(pairs(1 / 0.95, 1, 1.1))).toBeCloseTo(0.95, 2); // auto 5% slower stays 5% slower
    expect(abbaRatio(pairs(1, 1, 1))).toBe(1);
  });

  it('is NaN without a whole group', () => {
    expect(abbaRatio([{ auto: 1, best: 1 }])).toBeNaN();
  });
});

/** Times of `pairs` pairs of groups (sides F S S F S F F S): first's calls take `firstMs`, second's `secondMs`, and call k of each pair `slowAt(k)` times more. */
function callTimes(pairs: number, firstMs: number, secondMs: number, slowAt: (k: number) => number = () => 1): number[] {
  const sides = ['f', 's', 's', 'f', 's', 'f', 'f', 's'];
  return Array.from({ length: pairs * 8 }, (_, i) => (sides[i % 8] === 'f' ? firstMs : secondMs) * slowAt(i % 8));
}

describe('callAbbaRatios', () => {
  it('gives second over first both ways when nothing else differs', () => {
    const r = callAbbaRatios(callTimes(50, 1, 1.05));
    expect(r.pairs).toBeCloseTo(1.05, 12);
    expect(r.medians).toBeCloseTo(1.05, 12);
  });

  it('cancels a position that is slower in every group of four (each side holds it once per pair)', () => {
    const r = callAbbaRatios(callTimes(50, 1, 1, (k) => (k % 4 === 0 ? 1.5 : 1)));
    expect(r.pairs).toBeCloseTo(1, 12);
    expect(r.medians).toBeCloseTo(1, 12);
  });

  it('keeps a call in eight that is slow, phase-locked to the pairs, out of the medians but not out of the pair ratios', () => {
    const r = callAbbaRatios(callTimes(50, 1, 1, (k) => (k === 0 ? 1.4 : 1))); // always on the first side
    expect(r.medians).toBeCloseTo(1, 12);
    expect(r.pairs).toBeCloseTo(4 / 4.4, 12);
  });

  it('ignores a trailing partial pair, and is NaN without a whole one', () => {
    expect(callAbbaRatios([...callTimes(3, 1, 2), 100, 100, 100]).pairs).toBeCloseTo(2, 12);
    expect(callAbbaRatios([1, 1, 1, 1]).pairs).toBeNaN();
  });
});

