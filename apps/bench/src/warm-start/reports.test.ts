import { expect, it } from 'vitest';
import { isDecisionsReport, isFirstFastReport } from './reports.ts';
it('the warm-start reports are recognised field by field, and a missing or mistyped field is refused', () => {
  expect(isDecisionsReport({ startMs: 1, warm: true, calls: [{ case: 'a', backend: 'b', reason: 'c', ms: 1 }] })).toBe(
    true,
  );
  expect(isDecisionsReport({ startMs: 1, warm: true, calls: [{ case: 'a', backend: 'b', reason: 'c' }] })).toBe(false);
  expect(isDecisionsReport({ startMs: 1, warm: 'x', calls: [] })).toBe(false);
  expect(isFirstFastReport({ startMs: 1, warm: false, calls: 2, ms: 3 })).toBe(true);
  expect(isFirstFastReport({ startMs: 1, warm: false, calls: 2 })).toBe(false);
  expect(isFirstFastReport(null)).toBe(false);
});
