// Which op calls follow an idle host. After a pause the first calls run slower on every backend (CPU and GPU clocks
// and caches wake up): on the H100 host (2026-11-23, apps/bench/scripts/run-jitter-probe.ts, blocks of 8 calls of
// `mul 64x1024` after 20 ms pauses) the first two calls took 0.54 and 0.42 ms on rocm against 0.13 from the third
// on, and 0.36 / 0.40 against 0.11 on wasm. Learning from those calls priced a backend 4x too slow until it was
// measured again, and a burst of them made the cost model re-learn a size from a cold call.

/** A call starting more than this long after the previous call ended follows an idle gap. */
export const IDLE_GAP_MS = 5;

/** Calls after an idle gap counted as cold (the third call after a pause ran within 20% of the rest). */
export const COLD_CALLS_AFTER_IDLE = 2;

/** Tracks op calls' starts and ends to tell cold calls (just after an idle gap) from warm ones. */
export class WarmthTracker {
  /** End of the latest call; undefined before the first (which counts as warm: nothing says the host was idle). */
  private lastEndMs: number | undefined;
  private coldLeft = 0;

  /** An op call starts at `nowMs`; true when it is cold. */
  begin(nowMs: number): boolean {
    if (this.lastEndMs !== undefined && nowMs - this.lastEndMs > IDLE_GAP_MS) this.coldLeft = COLD_CALLS_AFTER_IDLE;
    if (this.coldLeft === 0) return false;
    this.coldLeft--;
    return true;
  }

  /** The op call ended at `nowMs`. */
  end(nowMs: number): void {
    this.lastEndMs = nowMs;
  }
}
