// The dispatch suite's auto-vs-best ratio from ABBA-ordered block pairs: a cost of going first cancels.
import { describe, expect, it } from 'vitest';
import { abbaRatio } from './dispatch.ts';

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
