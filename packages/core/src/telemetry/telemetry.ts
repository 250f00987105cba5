// Telemetry: a bounded ring of events plus cumulative counters whose size is bounded by (op x backend) keys.
import type { Clock } from '../clock.ts';
import { formatMs } from '../scheduler/selection.ts';
import type { NoticeEvent, OpEvent } from './events.ts';
import { Ring } from './ring.ts';
import { toChromeTrace, type ChromeTrace, type TraceOptions } from './chrome-trace.ts';
import { toPrometheus } from './prometheus.ts';

/** Upper bounds of the latency histogram, seconds (Prometheus convention). */
export const LATENCY_BUCKETS_S: readonly number[] = [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1, 5];

/** Cumulative numbers for one (op, backend). */
export interface Counter {
  /** Op id. */
  readonly op: string;
  /** Backend name. */
  readonly backend: string;
  /** Successful attempts. */
  ok: number;
  /** Failed attempts. */
  failed: number;
  /** Sum of wall time of successful attempts, ms. */
  totalMs: number;
  /** Bytes moved by all attempts. */
  bytesMoved: number;
  /** Successful attempt counts per LATENCY_BUCKETS_S bound (cumulative, Prometheus style), plus +Inf last. */
  readonly histogram: number[];
  /** Calls that ended here after another backend failed. */
  fallbacksIn: number;
}

/** One line of the summary. */
export interface SummaryRow {
  /** Successful attempts. */
  readonly ops: number;
  /** Failed attempts. */
  readonly failures: number;
  /** Total wall time of successful attempts, ms. */
  readonly totalMs: number;
  /** Mean wall time of a successful attempt, ms (0 when none). */
  readonly meanMs: number;
  /** Share of all successful attempts (0 when none). */
  readonly share: number;
  /** Bytes moved. */
  readonly bytesMoved: number;
}

/** Usage by backend and by op. */
export interface TelemetrySummary {
  /** Successful attempts in total. */
  readonly totalOps: number;
  /** Failed attempts in total. */
  readonly totalFailures: number;
  /** Calls answered by a fallback backend. */
  readonly fallbacks: number;
  /** Per backend. */
  readonly byBackend: Readonly<Record<string, SummaryRow>>;
  /** Per op. */
  readonly byOp: Readonly<Record<string, SummaryRow>>;
  /** Events dropped from the ring (counters still include them). */
  readonly droppedEvents: number;
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
  /** Clock value when the telemetry started, ms (trace timestamps are relative to it). */
  readonly originMs: number;

  constructor(clock: Clock, capacity = 10_000) {
    this.clock = clock;
    this.originMs = clock();
    this.events = new Ring<OpEvent>(capacity);
    this.notices = new Ring<NoticeEvent>(Math.max(16, Math.ceil(capacity / 10)));
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

  /** Records one op attempt. */
  recordOp(event: OpEvent): void {
    this.events.push(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not fail the op that was recorded.
      }
    }
    const c = this.counter(event.op, event.backend);
    c.bytesMoved += event.bytesMoved;
    if (!event.ok) {
      c.failed++;
      return;
    }
    c.ok++;
    c.totalMs += event.durationMs;
    if (event.attempt > 1) c.fallbacksIn++;
    const seconds = event.durationMs / 1000;
    LATENCY_BUCKETS_S.forEach((bound, i) => {
      if (seconds <= bound) c.histogram[i] = (c.histogram[i] ?? 0) + 1;
    });
    const inf = LATENCY_BUCKETS_S.length;
    c.histogram[inf] = (c.histogram[inf] ?? 0) + 1;
  }

  /** Records a backend notice. */
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

  /** Events held in the ring, oldest first. */
  opEvents(): OpEvent[] {
    return this.events.toArray();
  }

  /** The newest op event, if any: no copy of the ring (a per-call reader should use this, not opEvents()). */
  latestOpEvent(): OpEvent | undefined {
    return this.events.fromNewest(0);
  }

  /** Every attempt of the newest call (the newest events sharing its callId), oldest first; no copy of the ring. */
  latestCallEvents(): OpEvent[] {
    const newest = this.events.fromNewest(0);
    if (newest === undefined) return [];
    const call: OpEvent[] = [newest];
    for (let back = 1; ; back++) {
      const e = this.events.fromNewest(back);
      if (e === undefined || e.callId !== newest.callId) break;
      call.push(e);
    }
    return call.reverse();
  }

  /** Backend notices held, oldest first. */
  noticeEvents(): NoticeEvent[] {
    return this.notices.toArray();
  }

  /** Cumulative counters per (op, backend). */
  counterList(): Counter[] {
    return [...this.counters.values()];
  }

  /** Usage by backend and op; all zeros (never NaN) when nothing ran. */
  summary(): TelemetrySummary {
    const byBackend = new Map<string, Counter[]>();
    const byOp = new Map<string, Counter[]>();
    for (const c of this.counters.values()) {
      byBackend.set(c.backend, [...(byBackend.get(c.backend) ?? []), c]);
      byOp.set(c.op, [...(byOp.get(c.op) ?? []), c]);
    }
    const totalOps = this.counterList().reduce((s, c) => s + c.ok, 0);
    const row = (cs: readonly Counter[]): SummaryRow => {
      const ops = cs.reduce((s, c) => s + c.ok, 0);
      const totalMs = cs.reduce((s, c) => s + c.totalMs, 0);
      return {
        ops,
        failures: cs.reduce((s, c) => s + c.failed, 0),
        totalMs,
        meanMs: ops === 0 ? 0 : totalMs / ops,
        share: totalOps === 0 ? 0 : ops / totalOps,
        bytesMoved: cs.reduce((s, c) => s + c.bytesMoved, 0),
      };
    };
    const table = (m: Map<string, Counter[]>): Record<string, SummaryRow> => Object.fromEntries([...m.entries()].map(([k, cs]) => [k, row(cs)]));
    return {
      totalOps,
      totalFailures: this.counterList().reduce((s, c) => s + c.failed, 0),
      fallbacks: this.counterList().reduce((s, c) => s + c.fallbacksIn, 0),
      byBackend: table(byBackend),
      byOp: table(byOp),
      droppedEvents: this.events.dropped,
    };
  }

  /** A fixed-width table of the summary for logs. */
  debugTable(): string {
    const s = this.summary();
    const lines = [`ops ${s.totalOps}, failures ${s.totalFailures}, fallbacks ${s.fallbacks}`];
    lines.push(pad('backend / op', 22) + pad('ops', 8) + pad('fail', 6) + pad('mean', 11) + pad('total', 11) + pad('share', 7) + 'bytes moved');
    const emit = (name: string, r: SummaryRow): void => {
      lines.push(pad(name, 22) + pad(String(r.ops), 8) + pad(String(r.failures), 6) + pad(formatMs(r.meanMs), 11) + pad(formatMs(r.totalMs), 11) + pad(`${(r.share * 100).toFixed(1)}%`, 7) + String(r.bytesMoved));
    };
    for (const [name, r] of Object.entries(s.byBackend)) emit(name, r);
    for (const [name, r] of Object.entries(s.byOp)) emit(`  ${name}`, r);
    return lines.join('\n');
  }

  /** Everything as plain data. */
  toJSON(): { summary: TelemetrySummary; events: OpEvent[]; notices: NoticeEvent[] } {
    return { summary: this.summary(), events: this.opEvents(), notices: this.noticeEvents() };
  }

  /** Chrome trace events (open in Perfetto or chrome://tracing); `redact` leaves out failure and notice texts. */
  toChromeTrace(options: TraceOptions = {}): ChromeTrace {
    return toChromeTrace(this.opEvents(), this.noticeEvents(), this.originMs, options);
  }

  /** Prometheus text exposition format (version 0.0.4). */
  toPrometheus(): string {
    return toPrometheus(this.counterList(), LATENCY_BUCKETS_S);
  }

  /** Drops events and counters. */
  reset(): void {
    this.events.clear();
    this.notices.clear();
    this.counters.clear();
  }

  private counter(op: string, backend: string): Counter {
    const key = `${op}|${backend}`;
    let c = this.counters.get(key);
    if (c === undefined) {
      c = { op, backend, ok: 0, failed: 0, totalMs: 0, bytesMoved: 0, histogram: new Array<number>(LATENCY_BUCKETS_S.length + 1).fill(0), fallbacksIn: 0 };
      this.counters.set(key, c);
    }
    return c;
  }
}

function pad(s: string, n: number): string {
  return s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length);
}
