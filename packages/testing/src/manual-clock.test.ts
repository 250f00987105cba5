// ManualClock: time that moves only when told.
import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.ts';

describe('ManualClock', () => {
  it('starts at 0 and moves only by advance(), which adds up', () => {
    const clock = new ManualClock();
    expect(clock.clock()).toBe(0);
    clock.advance(2.5);
    clock.advance(0.25);
    expect(clock.nowMs).toBe(2.75);
    expect(clock.clock()).toBe(2.75);
  });

  it('hands out a Clock function that reads the current time, not the time it was taken', () => {
    const clock = new ManualClock();
    const read = clock.clock;
    clock.advance(7);
    expect(read()).toBe(7);
  });
});
