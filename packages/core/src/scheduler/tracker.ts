// Per (op, backend) outcomes and a success-rate circuit breaker.
//
// closed --(success rate over the window < threshold)--> open --(cool-down elapsed)--> half-open
// half-open admits exactly one probe call: success closes the circuit (and clears the window), failure re-opens it.
// State changes happen synchronously inside admit()/record(), so concurrent async callers see a consistent view.
import type { Clock } from '../clock.ts';
import { percentileOfSorted } from '../stats.ts';

/** Tuning of the breaker. */
export interface TrackerConfig {
  /** Success rate below which the circuit opens (gpuSuccessRateThreshold). */
  readonly successRateThreshold: number;
  /** Outcomes kept per (op, backend) for the success rate. */
  readonly window: number;
  /** Outcomes needed before the rate can open the circuit. */
  readonly minCalls: number;
  /** Time an open circuit waits before admitting a probe, ms. */
  readonly coolDownMs: number;
  /** Latency samples kept per (op, backend) for percentiles. */
  readonly latencyWindow: number;
}

export const DEFAULT_TRACKER_CONFIG: TrackerConfig = {
  successRateThreshold: 0.95,
  window: 50,
  minCalls: 5,
  coolDownMs: 2000,
  latencyWindow: 256,
};

/** Where a circuit stands. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What the breaker says about a call. */
export type Admission =
  | { readonly admitted: true; readonly probe: boolean }
  | { readonly admitted: false; readonly successRate: number; readonly retryInMs: number };

/** Counters and latency stats for one (op, backend). */
export interface TrackerStats {
  /** Op id. */
  readonly op: string;
  /** Backend name. */
  readonly backend: string;
  /** Successful calls, all time. */
  readonly successes: number;
  /** Failed calls, all time. */
  readonly failures: number;
  /** Success rate over the recent window (1 when empty). */
  readonly successRate: number;
  /** Circuit state now. */
  readonly circuit: CircuitState;
  /** Median latency of recent successful calls, ms (0 when none). */
  readonly p50Ms: number;
  /** 99th percentile latency of recent successful calls, ms (0 when none). */
  readonly p99Ms: number;
}

class Entry {
  successes = 0;
  failures = 0;
  readonly outcomes: boolean[] = [];
  readonly latencies: number[] = [];
  state: CircuitState = 'closed';
  openedAt = 0;
  probeInFlight = false;

  successRate(): number {
    if (this.outcomes.length === 0) return 1;
    let ok = 0;
    for (const o of this.outcomes) if (o) ok++;
    return ok / this.outcomes.length;
  }
}

/** Tracks outcomes per (op, backend) and decides whether a backend may be called. */
export class Tracker {
  /** op -> backend -> entry. */
  private readonly entries = new Map<string, Map<string, Entry>>();
  readonly config: TrackerConfig;
  private readonly clock: Clock;
  /** Called when a circuit changes state, for telemetry. */
  onTransition: ((op: string, backend: string, to: CircuitState, successRate: number) => void) | undefined;

  constructor(clock: Clock, config: Partial<TrackerConfig> = {}) {
    this.clock = clock;
    this.config = { ...DEFAULT_TRACKER_CONFIG, ...config };
  }

  /** Circuit state for (op, backend), moving open -> half-open when the cool-down has passed. */
  state(op: string, backend: string): CircuitState {
    const e = this.entries.get(op)?.get(backend);
    if (e === undefined) return 'closed';
    if (e.state === 'open' && this.clock() - e.openedAt >= this.config.coolDownMs)
      this.transition(op, backend, e, 'half-open');
    return e.state;
  }

  /** Whether a call may go to (op, backend) now; a half-open circuit admits one probe and marks it taken. */
  admit(op: string, backend: string): Admission {
    const state = this.state(op, backend);
    const e = this.entries.get(op)?.get(backend);
    if (e === undefined || state === 'closed') return { admitted: true, probe: false };
    if (state === 'half-open' && !e.probeInFlight) {
      e.probeInFlight = true;
      return { admitted: true, probe: true };
    }
    const retryInMs =
      state === 'open' ? Math.max(0, this.config.coolDownMs - (this.clock() - e.openedAt)) : this.config.coolDownMs;
    return { admitted: false, successRate: e.successRate(), retryInMs };
  }

  /** Whether admit() would let a call through, without taking the probe slot. */
  wouldAdmit(op: string, backend: string): boolean {
    const state = this.state(op, backend);
    if (state === 'closed') return true;
    const e = this.entries.get(op)?.get(backend);
    return state === 'half-open' && e !== undefined && !e.probeInFlight;
  }

  /** Success rate of (op, backend) over the recent window. */
  successRate(op: string, backend: string): number {
    return this.entries.get(op)?.get(backend)?.successRate() ?? 1;
  }

  /** Records the outcome of a call that admit() let through. */
  record(op: string, backend: string, ok: boolean, latencyMs: number, probe: boolean): void {
    const e = this.entry(op, backend);
    if (ok) {
      e.successes++;
      e.latencies.push(latencyMs);
      if (e.latencies.length > this.config.latencyWindow) e.latencies.shift();
    } else {
      e.failures++;
    }
    e.outcomes.push(ok);
    if (e.outcomes.length > this.config.window) e.outcomes.shift();
    if (probe) {
      e.probeInFlight = false;
      if (ok) {
        e.outcomes.length = 0;
        this.transition(op, backend, e, 'closed');
      } else {
        e.openedAt = this.clock();
        this.transition(op, backend, e, 'open');
      }
      return;
    }
    if (
      e.state === 'closed' &&
      e.outcomes.length >= this.config.minCalls &&
      e.successRate() < this.config.successRateThreshold
    ) {
      e.openedAt = this.clock();
      this.transition(op, backend, e, 'open');
    }
  }

  /** Frees the probe slot of a probe call that ended with no outcome (the caller's mistake), so the next call probes. */
  releaseProbe(op: string, backend: string): void {
    const e = this.entries.get(op)?.get(backend);
    if (e !== undefined) e.probeInFlight = false;
  }

  /** Stats of every (op, backend) seen. */
  stats(): TrackerStats[] {
    const all: Array<[string, string, Entry]> = [];
    for (const [op, byBackend] of this.entries) for (const [backend, e] of byBackend) all.push([op, backend, e]);
    return all.map(([op, backend, e]) => {
      const sorted = [...e.latencies].sort((a, b) => a - b);
      return {
        op,
        backend,
        successes: e.successes,
        failures: e.failures,
        successRate: e.successRate(),
        circuit: this.state(op, backend),
        p50Ms: sorted.length === 0 ? 0 : percentileOfSorted(sorted, 0.5),
        p99Ms: sorted.length === 0 ? 0 : percentileOfSorted(sorted, 0.99),
      };
    });
  }

  private entry(op: string, backend: string): Entry {
    let byBackend = this.entries.get(op);
    if (byBackend === undefined) {
      byBackend = new Map();
      this.entries.set(op, byBackend);
    }
    let e = byBackend.get(backend);
    if (e === undefined) {
      e = new Entry();
      byBackend.set(backend, e);
    }
    return e;
  }

  private transition(op: string, backend: string, e: Entry, to: CircuitState): void {
    if (e.state === to) return;
    e.state = to;
    this.onTransition?.(op, backend, to, e.successRate());
  }
}
