// Telemetry: a bounded ring of events (unless the level is 'counters') plus cumulative counters whose size is bounded
// by (op x backend) keys, and the engine's view for what only it knows (backend kinds, GPU availability, speedups).
import type { BackendKind } from '../backend.ts';
import type { Clock } from '../clock.ts';
import type { OpKind } from '../ops.ts';
import type { SelectionReason } from '../scheduler/selection.ts';
import { chromeTraceOf, type TraceOptions } from './chrome-trace.ts';
import type { NoticeEvent, OpEvent } from './events.ts';
import { toPrometheus } from './prometheus.ts';
import { Ring } from './ring.ts';
import {
  debugTable,
  decisionsOf,
  decisionsTable,
  summarise,
  type Counter,
  type DecisionRow,
  type TelemetrySummary,
} from './summary.ts';

export type { Counter, DecisionRow, SummaryRow, TelemetrySummary } from './summary.ts';

/** Upper bounds of the latency histogram, seconds (Prometheus convention). */
export const LATENCY_BUCKETS_S: readonly number[] = [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1, 5];

/**
 * How much the telemetry keeps: 'events' (default) every attempt in a bounded ring plus the counters; 'counters' only
 * the counters (summary, debugTable, Prometheus: the tandem_* metrics stay exact) and the notices, no event ring.
 */
export type TelemetryLevel = 'events' | 'counters';

/** What the telemetry asks of the engine it records for (a Telemetry made alone has none: no kinds, no GPU). */
export interface TelemetryView {
  /** The kind of a registered backend; undefined for a name the engine does not have. */
  kindOf(backend: string): BackendKind | undefined;
  /** Whether a GPU backend can take work now (initialised, not unhealthy or recovering). */
  gpuAvailable(): boolean;
  /** Best CPU estimate over best GPU estimate for an op (id or cost-model key) at `flops`, from what was measured. */
  gpuSpeedup(op: string, flops: number | undefined): number | undefined;
}

/** How a Telemetry is made. */
export interface TelemetryOptions {
  /** Events kept in the ring (default 10,000; the notices' ring holds a tenth, at least 16). */
  readonly capacity?: number | undefined;
  /** What is kept (default 'events'). */
  readonly level?: TelemetryLevel | undefined;
  /** The engine's side: backend kinds, GPU availability, the cost model's speedups. */
  readonly view?: TelemetryView;
}

const NO_ENGINE: TelemetryView = { kindOf: () => undefined, gpuAvailable: () => false, gpuSpeedup: () => undefined };

/** A counted attempt without its event (what the engine records when no event is kept: level 'counters', no listener). */
export interface CountedAttempt {
  /** Op id. */
  readonly op: string;
  /** Backend tried. */
  readonly backend: string;
  /** 1 for the first backend tried, 2+ for fallbacks. */
  readonly attempt: number;
  /** Whether it produced the result. */
  readonly ok: boolean;
  /** Wall time of the attempt including transfers, ms. */
  readonly durationMs: number;
  /** Bytes moved between host and backends for this attempt. */
  readonly bytesMoved: number;
  /** Why that backend. */
  readonly reason: SelectionReason;
  /** The estimates the decision compared, ms. */
  readonly costsMs: Readonly<Record<string, number>>;
}

/** Records what the engine did; export it as JSON, a Chrome trace or Prometheus text. */
export class Telemetry {
  private readonly events: Ring<OpEvent>;
  private readonly notices: Ring<NoticeEvent>;
  private readonly counters = new Map<string, Counter>();
  private readonly listeners = new Set<(event: OpEvent) => void>();
  private readonly noticeListeners = new Set<(notice: NoticeEvent) => void>();
  private seq = 0;
  private readonly clock: Clock;
  private readonly view: TelemetryView;
  /** What is kept: 'events' (ring and counters) or 'counters'. */
  readonly level: TelemetryLevel;
  /** Clock value when the telemetry started, ms (trace timestamps are relative to it). */
  readonly originMs: number;

  constructor(clock: Clock, options: TelemetryOptions = {}) {
    const capacity = options.capacity ?? 10_000;
    this.clock = clock;
    this.originMs = clock();
    this.level = options.level ?? 'events';
    this.view = options.view ?? NO_ENGINE;
    // With no event ring the ring holds one event: subscribers still get every event, nothing is kept.
    this.events = new Ring<OpEvent>(this.level === 'events' ? capacity : 1);
    this.notices = new Ring<NoticeEvent>(Math.max(16, Math.ceil(capacity / 10)));
  }

  /** Whether recordOp wants whole events (the ring is on, or someone subscribed); else count() is enough. */
  get keepsEvents(): boolean {
    return this.level === 'events' || this.listeners.size > 0;
  }

  /** Next sequence number. */
  nextSeq(): number {
    return ++this.seq;
  }

  /** Calls `listener` with every op attempt recorded from now on (live charts, per-request reports); returns the unsubscribe function. */
  subscribe(listener: (event: OpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Calls `listener` with every backend notice from now on (ready, unavailable, unhealthy, recovered, circuit
   * changes, cost-model resets): a page shows each backend's live state from these without polling. Returns the
   * unsubscribe function.
   */
  subscribeNotices(listener: (notice: NoticeEvent) => void): () => void {
    this.noticeListeners.add(listener);
    return () => {
      this.noticeListeners.delete(listener);
    };
  }

  /** Records one op attempt: the ring (level 'events'), the subscribers and the counters. */
  recordOp(event: OpEvent): void {
    if (this.level === 'events') this.events.push(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not fail the op that was recorded.
      }
    }
    this.count(event);
  }

  /** Counts one op attempt in the counters only (no event kept, nobody told). */
  count(attempt: CountedAttempt): void {
    const c = this.counter(attempt.op, attempt.backend);
    c.bytesMoved += attempt.bytesMoved;
    if (!attempt.ok) {
      c.failed++;
      return;
    }
    c.ok++;
    c.totalMs += attempt.durationMs;
    c.lastReason = attempt.reason;
    c.lastCostsMs = attempt.costsMs;
    if (attempt.attempt > 1) c.fallbacksIn++;
    const seconds = attempt.durationMs / 1000;
    for (let i = 0; i < LATENCY_BUCKETS_S.length; i++)
      if (seconds <= (LATENCY_BUCKETS_S[i] ?? 0)) c.histogram[i] = (c.histogram[i] ?? 0) + 1;
    const inf = LATENCY_BUCKETS_S.length;
    c.histogram[inf] = (c.histogram[inf] ?? 0) + 1;
  }

  /**
   * Records a backend notice. `detail` is its text in words: for ready, the device; for unavailable, unhealthy and
   * recovered, the reason; for circuit changes, the success rate; for cost-model resets, the measurements and estimate.
   */
  notice(kind: NoticeEvent['kind'], backend: string, detail: string, op?: string): void {
    const notice: NoticeEvent = { seq: this.nextSeq(), atMs: this.clock(), kind, backend, op, detail };
    this.notices.push(notice);
    for (const listener of this.noticeListeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure must not fail the engine's bookkeeping.
      }
    }
  }

  /** Events held in the ring, oldest first (none at level 'counters'). */
  opEvents(): OpEvent[] {
    return this.level === 'events' ? this.events.toArray() : [];
  }

  /** The events of op `op` held in the ring, oldest first. */
  eventsByOp(op: OpKind): OpEvent[] {
    return this.opEvents().filter((e) => e.op === op);
  }

  /** The newest op event, if any: no copy of the ring (a per-call reader should use this, not opEvents()). */
  latestOpEvent(): OpEvent | undefined {
    return this.level === 'events' ? this.events.fromNewest(0) : undefined;
  }

  /** Every attempt of the newest call (the newest events sharing its callId), oldest first; no copy of the ring. */
  latestCallEvents(): OpEvent[] {
    const newest = this.latestOpEvent();
    if (newest === undefined) return [];
    const call: OpEvent[] = [newest];
    for (let back = 1; ; back++) {
      const e = this.events.fromNewest(back);
      if (e === undefined || e.callId !== newest.callId) break;
      call.push(e);
    }
    return call.reverse();
  }

  /**
   * One row per call held in the ring, oldest first: op, shapes, the backend that answered, why in words, its time.
   * `last`: only the newest so many calls.
   */
  decisions(options: { readonly last?: number } = {}): DecisionRow[] {
    const rows = decisionsOf(this.opEvents());
    return options.last === undefined ? rows : rows.slice(Math.max(0, rows.length - options.last));
  }

  /** decisions() as a fixed-width table, the newest `last` calls (default 20). */
  decisionsTable(last = 20): string {
    return decisionsTable(this.decisions({ last }));
  }

  /** Backend notices held, oldest first. */
  noticeEvents(): NoticeEvent[] {
    return this.notices.toArray();
  }

  /** Cumulative counters per (op, backend). */
  counterList(): Counter[] {
    return [...this.counters.values()];
  }

  /** Usage by backend kind, backend and op, with shares of ops and of time; all zeros (never NaN) when nothing ran. */
  summary(): TelemetrySummary {
    return summarise(this.counterList(), (b) => this.view.kindOf(b), this.events.dropped);
  }

  /** A fixed-width table of the summary for logs: per kind, backend and op the counts, time shares and last reason. */
  debugTable(): string {
    return debugTable(this.summary(), this.counterList(), (b) => this.view.kindOf(b));
  }

  /** Whether a GPU backend can take work now (initialised, healthy or degraded, not recovering; software GPUs count). */
  isGpuAvailable(): boolean {
    return this.view.gpuAvailable();
  }

  /**
   * How many times faster the best GPU backend is estimated than the best CPU backend on `op` (an op id, or a cost
   * model key such as 'matmul|f16'), from the cost model's measurements: above 1 the GPU is faster. `size` is a
   * call's work in FLOPs (explain().work.flops), default the newest measured call's. Undefined until both kinds were
   * measured on the op.
   */
  gpuSpeedup(op: OpKind | `${OpKind}|${string}`, size?: number): number | undefined {
    return this.view.gpuSpeedup(op, size);
  }

  /** Everything as plain data. */
  toJSON(): { summary: TelemetrySummary; events: OpEvent[]; notices: NoticeEvent[] } {
    return { summary: this.summary(), events: this.opEvents(), notices: this.noticeEvents() };
  }

  /**
   * The Chrome trace as JSON text, to save and open in Perfetto or chrome://tracing (chromeTraceOf gives the same as
   * data); `redact` leaves out failure and notice texts.
   */
  toChromeTrace(options: TraceOptions = {}): string {
    return JSON.stringify(chromeTraceOf(this.opEvents(), this.noticeEvents(), this.originMs, options));
  }

  /** Prometheus text exposition format (version 0.0.4). */
  toPrometheus(): string {
    return toPrometheus(this.counterList(), LATENCY_BUCKETS_S);
  }

  /** Drops events, notices and counters, and zeroes droppedEvents. */
  reset(): void {
    this.events.clear();
    this.notices.clear();
    this.counters.clear();
  }

  private counter(op: string, backend: string): Counter {
    const key = `${op}|${backend}`;
    let c = this.counters.get(key);
    if (c === undefined) {
      c = {
        op,
        backend,
        ok: 0,
        failed: 0,
        totalMs: 0,
        bytesMoved: 0,
        histogram: new Array<number>(LATENCY_BUCKETS_S.length + 1).fill(0),
        fallbacksIn: 0,
        lastReason: undefined,
        lastCostsMs: undefined,
      };
      this.counters.set(key, c);
    }
    return c;
  }
}
