import type { Clock } from '@tandem/core';

/** A clock that moves only when told: makes latency, cool-downs and deadlines deterministic in tests. */
export class ManualClock {
  /** Current time, ms. */
  nowMs = 0;
  /** The Clock function to hand to an engine. */
  readonly clock: Clock = () => this.nowMs;
  /** Moves time forward. */
  advance(ms: number): void {
    this.nowMs += ms;
  }
}
