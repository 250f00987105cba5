// The dispatch suite's auto-vs-best ratio from ABBA-ordered block pairs: a cost of going first cancels.
import { describe, expect, it } from 'vitest';
import { abbaRatio, callAbbaRatios, callAbbaSides } from './dispatch.ts';

/** 24 pairs in ABBA order (auto first in even pairs) of a strategy pair whose first block pays `firstCost`. */
function pairs(autoMs: number, bestMs: number, firstCost: number): Array<{ best: number; auto: number }> {
  return Array.from({ length: 24 }, (_, k) =>
    k % 2 === 0 ? { auto: autoMs * firstCost, best: bestMs } : { auto: autoMs, best: bestMs * firstCost },
  );
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

/** The fixed pattern (no mirrored pairs), `pairs` times. */
const fixedSides = (pairs: number): Array<'first' | 'second'> =>
  Array.from(
    { length: pairs },
    () => ['first', 'second', 'second', 'first', 'second', 'first', 'first', 'second'] as const,
  ).flat();

/** Times of calls on `sides`: first's take `firstMs`, second's `secondMs`, and call i `slowAt(i)` times more. */
function callTimes(
  sides: ReadonlyArray<'first' | 'second'>,
  firstMs: number,
  secondMs: number,
  slowAt: (i: number) => number = () => 1,
): number[] {
  return sides.map((side, i) => (side === 'first' ? firstMs : secondMs) * slowAt(i));
}

describe('callAbbaRatios', () => {
  it('gives second over first both ways when nothing else differs', () => {
    const sides = callAbbaSides(50, 1);
    const r = callAbbaRatios(callTimes(sides, 1, 1.05), sides);
    expect(r.pairs).toBeCloseTo(1.05, 12);
    expect(r.medians).toBeCloseTo(1.05, 12);
  });

  it('cancels a position that is slower in every group of four (each side holds it once per pair, mirrored or not)', () => {
    const sides = callAbbaSides(50, 2);
    const r = callAbbaRatios(
      callTimes(sides, 1, 1, (i) => (i % 4 === 0 ? 1.5 : 1)),
      sides,
    );
    expect(r.pairs).toBeCloseTo(1, 12);
    expect(r.medians).toBeCloseTo(1, 12);
  });

  it('a slow call every eighth: phase-locked to one side with a fixed pattern, spread over both with drawn mirrors', () => {
    const slow = (i: number): number => (i % 8 === 0 ? 1.4 : 1);
    const fixed = fixedSides(50);
    expect(callAbbaRatios(callTimes(fixed, 1, 1, slow), fixed).pairs).toBeCloseTo(4 / 4.4, 12); // always on the first side
    const drawn = callAbbaSides(200, 3);
    const r = callAbbaRatios(callTimes(drawn, 1, 1, slow), drawn);
    expect(r.medians).toBeCloseTo(1, 12);
    expect(r.pairs).toBeGreaterThan(0.95); // pair ratios of 4/4.4 and 4.4/4 in about equal numbers
    expect(r.pairs).toBeLessThan(1.11);
  });

  it('draws both patterns, the same ones for the same seed', () => {
    const sides = callAbbaSides(100, 4);
    const mirrored = Array.from({ length: 100 }, (_, p) => sides[8 * p] === 'second').filter(Boolean).length;
    expect(mirrored).toBeGreaterThan(30);
    expect(mirrored).toBeLessThan(70);
    expect(callAbbaSides(100, 4)).toEqual(sides);
    for (let p = 0; p < 100; p++) {
      const group = sides.slice(8 * p, 8 * p + 8);
      expect(group.filter((s) => s === 'first').length).toBe(4);
    }
  });

  it('ignores a trailing partial pair, and is NaN without a whole one', () => {
    const sides = fixedSides(3);
    expect(
      callAbbaRatios([...callTimes(sides, 1, 2), 100, 100, 100], [...sides, 'first', 'second', 'second']).pairs,
    ).toBeCloseTo(2, 12);
    expect(callAbbaRatios([1, 1, 1, 1], ['first', 'second', 'second', 'first']).pairs).toBeNaN();
  });
});
