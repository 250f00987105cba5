// Chrome trace event format (JSON), as Perfetto and chrome://tracing draw it: one complete ('X') event per op
// attempt and an instant ('i') event per notice. Perfetto requires X events on one thread to nest, and concurrent
// calls on one backend (a server's batches, Promise.all) overlap, so each backend gets as many tracks ("lanes") as
// it had calls in flight at once: an attempt goes on the first lane of its backend that is free at its start.
// Timestamps are fractional microseconds (cached calls take 0.2-2.5 us); fields with no value are left out.
import { describeReason, type SelectionReason } from '../scheduler/selection.ts';
import type { NoticeEvent, OpEvent } from './events.ts';

/** One trace event (the subset of fields Tandem writes). */
export interface TraceEvent {
  /** Event name (op id or notice kind). */
  readonly name: string;
  /** Category (backend name). */
  readonly cat: string;
  /** Phase: X complete, i instant, M metadata. */
  readonly ph: 'X' | 'i' | 'M';
  /** Timestamp, microseconds (fractional). */
  readonly ts: number;
  /** Duration, microseconds (X only; fractional, may be 0). */
  readonly dur?: number;
  /** Process id. */
  readonly pid: number;
  /** Thread id: one per lane of a backend. */
  readonly tid: number;
  /** Instant scope (i only). */
  readonly s?: 'g' | 'p' | 't';
  /** Extra fields shown in the viewer; a field without a value is absent, never a sentinel. */
  readonly args: Readonly<Record<string, string | number | boolean>>;
}

/** A file Perfetto and chrome://tracing open. */
export interface ChromeTrace {
  /** The events. */
  readonly traceEvents: readonly TraceEvent[];
  /** Time unit shown by the viewer. */
  readonly displayTimeUnit: 'ms';
}

/** What a trace leaves out. */
export interface TraceOptions {
  /**
   * Leave out free text that can carry driver or system details: failure messages, the text of reasons that hold an
   * error or a platform message (their kind stays), notice details. For traces served to others (a server's /trace).
   */
  readonly redact?: boolean;
}

/** Tracks of a trace: the thread each event goes on, and the metadata events naming them. */
export interface TraceTracks {
  /** Thread id of an op attempt (its backend's lane). */
  readonly opTid: (event: OpEvent) => number;
  /** Thread id of a notice (its backend's first lane). */
  readonly noticeTid: (notice: NoticeEvent) => number;
  /** process_name, thread_name and thread_sort_index events. */
  readonly meta: readonly TraceEvent[];
}

/** Reasons whose text is made of numbers and backend names only; the others carry error or platform messages. */
const PLAIN_REASONS: ReadonlySet<SelectionReason['kind']> = new Set([
  'gpu-available',
  'cost-model',
  'memory-constraint',
  'user-preference',
  'force-cpu',
  'below-min-batch',
  'circuit-open',
  'exploring',
  'hysteresis',
  'warming',
]);

/** Microseconds since `originMs`, to the nanosecond (shorter JSON than the raw double, same order). */
export function traceMicros(ms: number, originMs = 0): number {
  return Math.round((ms - originMs) * 1e6) / 1000;
}

/** Assigns every op attempt a lane of its backend and every backend its first lane; names the lanes. */
export function traceTracks(
  events: readonly OpEvent[],
  notices: readonly NoticeEvent[],
  originMs: number,
): TraceTracks {
  const laneEnds = new Map<string, number[]>(); // per backend: the end (us, as written) of the last event on each lane
  const laneOf = new Map<OpEvent, number>();
  const byStart = [...events].sort((a, b) => a.startMs - b.startMs || a.seq - b.seq);
  for (const e of byStart) {
    const ends = laneEnds.get(e.backend) ?? [];
    laneEnds.set(e.backend, ends);
    const start = traceMicros(e.startMs, originMs);
    const end = start + traceMicros(e.durationMs);
    let lane = ends.findIndex((free) => free <= start);
    if (lane < 0) lane = ends.push(end) - 1;
    else ends[lane] = end;
    laneOf.set(e, lane);
  }
  for (const n of notices) if (!laneEnds.has(n.backend)) laneEnds.set(n.backend, [0]);
  const tids = new Map<string, number>(); // `${backend}#${lane}` -> tid
  const meta: TraceEvent[] = [
    { name: 'process_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'tandem' } },
  ];
  for (const [backend, ends] of laneEnds) {
    ends.forEach((_, lane) => {
      const tid = tids.size + 1;
      tids.set(`${backend}#${lane}`, tid);
      meta.push({
        name: 'thread_name',
        cat: '',
        ph: 'M',
        ts: 0,
        pid: 1,
        tid,
        args: { name: lane === 0 ? backend : `${backend} (concurrent ${lane + 1})` },
      });
      meta.push({ name: 'thread_sort_index', cat: '', ph: 'M', ts: 0, pid: 1, tid, args: { sort_index: tid } });
    });
  }
  return {
    opTid: (e) => tids.get(`${e.backend}#${laneOf.get(e) ?? 0}`) ?? 0,
    noticeTid: (n) => tids.get(`${n.backend}#0`) ?? 0,
    meta,
  };
}

/** One op attempt as a complete ('X') event on thread `tid`. */
export function opTraceEvent(e: OpEvent, originMs: number, tid: number, options: TraceOptions = {}): TraceEvent {
  const redact = options.redact === true;
  const args: Record<string, string | number | boolean> = {
    call: e.callId,
    attempt: e.attempt,
    dtype: e.dtype,
    shapes: e.shapes,
    reason: redact && !PLAIN_REASONS.has(e.reason.kind) ? e.reason.kind : describeReason(e.reason, e.costsMs),
    ok: e.ok,
    estimatedMs: e.estimatedMs,
    flops: e.flops,
    bytesMoved: e.bytesMoved,
  };
  if (e.kernelMs !== undefined) args['kernelMs'] = e.kernelMs;
  if (e.error !== undefined && !redact) args['error'] = e.error;
  const name = e.label === undefined ? e.op : `${e.label} (${e.op})`;
  return {
    name,
    cat: e.backend,
    ph: 'X',
    ts: traceMicros(e.startMs, originMs),
    dur: traceMicros(e.durationMs),
    pid: 1,
    tid,
    args,
  };
}

/** A backend notice as an instant ('i') event on thread `tid`. */
export function noticeTraceEvent(
  n: NoticeEvent,
  originMs: number,
  tid: number,
  options: TraceOptions = {},
): TraceEvent {
  const args: Record<string, string | number | boolean> = {};
  if (n.op !== undefined) args['op'] = n.op;
  if (options.redact !== true) args['detail'] = n.detail;
  return { name: n.kind, cat: n.backend, ph: 'i', s: 'p', ts: traceMicros(n.atMs, originMs), pid: 1, tid, args };
}

/** Converts events into a Chrome trace as data: lanes per backend, attempts in recorded order, then notices. */
export function chromeTraceOf(
  events: readonly OpEvent[],
  notices: readonly NoticeEvent[],
  originMs: number,
  options: TraceOptions = {},
): ChromeTrace {
  const tracks = traceTracks(events, notices, originMs);
  const ops = events.map((e) => opTraceEvent(e, originMs, tracks.opTid(e), options));
  const instants = notices.map((n) => noticeTraceEvent(n, originMs, tracks.noticeTid(n), options));
  return { traceEvents: [...tracks.meta, ...ops, ...instants], displayTimeUnit: 'ms' };
}
