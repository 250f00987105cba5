// Which op calls and copies follow an idle backend. After a pause the first calls run slower on every backend (CPU
// and GPU clocks and caches wake up, a GPU backend's worker thread sleeps): the first two calls after a short pause
// take several times as long as the third (docs/decisions.md, issue 29; apps/bench/probes/run-jitter-probe.ts).
// Learning from those calls priced a backend several times too slow until it was measured again, and a burst of them
// made the cost model re-learn a size from a cold call.
// Idleness is per backend: a GPU left alone while the CPU backend ran for a while is as cold as after a pause of the
// whole host (the dispatch suite's rocm blocks right after wasm blocks: rocm had been idle while the host was busy,
// and its cold calls, counted as warm, priced it too slow).

/** A call starting more than this long after the previous call on its backend ended follows an idle gap. */
export const IDLE_GAP_MS = 5;

/** Calls after an idle gap counted as cold (the third call after a pause ran within 20% of the rest). */
export const COLD_CALLS_AFTER_IDLE = 2;

/** One backend's recent activity. */
interface Activity {
  /** End of its latest call; undefined before the first (which counts as warm: nothing says it was idle). */
  lastEndMs: number | undefined;
  /** Cold calls still to come after the latest idle gap. */
  coldLeft: number;
  /** Whether its latest call was cold. */
  latestCold: boolean;
  /** Calls running on it now (concurrent callers overlap). */
  running: number;
}

/** Tracks op calls' starts and ends per backend to tell cold calls (just after the backend was idle) from warm ones. */
export class WarmthTracker {
  private readonly backends = new Map<string, Activity>();

  /** An op call starts on `backend` at `nowMs`; true when it is cold. */
  begin(backend: string, nowMs: number): boolean {
    const a = this.activity(backend);
    if (a.running === 0 && a.lastEndMs !== undefined && nowMs - a.lastEndMs > IDLE_GAP_MS)
      a.coldLeft = COLD_CALLS_AFTER_IDLE;
    a.running++;
    a.latestCold = a.coldLeft > 0;
    if (a.coldLeft > 0) a.coldLeft--;
    return a.latestCold;
  }

  /** The op call on `backend` ended at `nowMs`. */
  end(backend: string, nowMs: number): void {
    const a = this.activity(backend);
    a.lastEndMs = nowMs;
    a.running = Math.max(0, a.running - 1);
  }

  /**
   * Whether a copy to or from `backend` starting at `nowMs` is cold: one inside a call (an input's upload) or right
   * after it (the caller reading the result) is as cold as that call; one after the backend sat idle is cold too.
   */
  copyIsCold(backend: string, nowMs: number): boolean {
    const a = this.activity(backend);
    if (a.running > 0 || a.lastEndMs === undefined) return a.latestCold;
    return nowMs - a.lastEndMs > IDLE_GAP_MS || a.latestCold;
  }

  private activity(backend: string): Activity {
    let a = this.backends.get(backend);
    if (a === undefined) {
      a = { lastEndMs: undefined, coldLeft: 0, latestCold: false, running: 0 };
      this.backends.set(backend, a);
    }
    return a;
  }
}
