import { describe, expect, it } from 'vitest';
import { COLD_CALLS_AFTER_IDLE, IDLE_GAP_MS, WarmthTracker } from './warmth.ts';

describe('WarmthTracker', () => {
  it('counts the first calls after an idle gap as cold, and calls that follow each other closely as warm', () => {
    const w = new WarmthTracker();
    const colds: boolean[] = [];
    let now = 0;
    const call = (gapMs: number): void => {
      now += gapMs;
      colds.push(w.begin(now));
      now += 0.1;
      w.end(now);
    };
    for (let i = 0; i < 4; i++) call(0.01); // the first call ever follows nothing known to be idle: warm
    call(IDLE_GAP_MS + 1);
    for (let i = 0; i < 3; i++) call(0.01);
    call(IDLE_GAP_MS - 1); // a shorter gap: still warm
    expect(COLD_CALLS_AFTER_IDLE).toBe(2);
    expect(colds).toEqual([false, false, false, false, true, true, false, false, false]);
  });

  it('measures the gap from the end of the previous call, not its start', () => {
    const w = new WarmthTracker();
    expect(w.begin(0)).toBe(false);
    w.end(0);
    expect(w.begin(IDLE_GAP_MS * 3)).toBe(true); // no call for 3 gaps
    w.end(IDLE_GAP_MS * 10); // a long call (a large op) ends
    expect(w.begin(IDLE_GAP_MS * 10 + 1)).toBe(true); // the second cold call after that gap
    w.end(IDLE_GAP_MS * 10 + 2);
    expect(w.begin(IDLE_GAP_MS * 10 + 3)).toBe(false);
  });
});
