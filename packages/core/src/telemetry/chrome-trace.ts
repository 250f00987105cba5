// Chrome trace event format: complete ('X') events on one track per backend, instant ('i') events for notices.
import { describeReason } from '../scheduler/selection.ts';
import type { NoticeEvent, OpEvent } from './events.ts';

/** One trace event (the subset of fields Tandem writes). */
export interface TraceEvent {
  /** Event name (op id or notice kind). */
  readonly name: string;
  /** Category (backend name). */
  readonly cat: string;
  /** Phase: X complete, i instant, M metadata. */
  readonly ph: 'X' | 'i' | 'M';
  /** Timestamp, microseconds. */
  readonly ts: number;
  /** Duration, microseconds (X only). */
  readonly dur?: number;
  /** Process id. */
  readonly pid: number;
  /** Thread id: one per backend. */
  readonly tid: number;
  /** Instant scope (i only). */
  readonly s?: 'g' | 'p' | 't';
  /** Extra fields shown in the viewer. */
  readonly args: Readonly<Record<string, string | number | boolean>>;
}

/** A file Perfetto and chrome://tracing open. */
export interface ChromeTrace {
  /** The events. */
  readonly traceEvents: readonly TraceEvent[];
  /** Time unit shown by the viewer. */
  readonly displayTimeUnit: 'ms';
}

/** Converts events into a Chrome trace with one named track per backend. */
export function toChromeTrace(events: readonly OpEvent[], notices: readonly NoticeEvent[], originMs: number): ChromeTrace {
  const tids = new Map<string, number>();
  const tid = (backend: string): number => {
    let t = tids.get(backend);
    if (t === undefined) {
      t = tids.size + 1;
      tids.set(backend, t);
    }
    return t;
  };
  const out: TraceEvent[] = [];
  for (const e of events) {
    out.push({
      name: e.label === undefined ? e.op : `${e.label} (${e.op})`,
      cat: e.backend,
      ph: 'X',
      ts: Math.round((e.startMs - originMs) * 1000),
      dur: Math.max(1, Math.round(e.durationMs * 1000)),
      pid: 1,
      tid: tid(e.backend),
      args: {
        call: e.callId,
        attempt: e.attempt,
        dtype: e.dtype,
        shapes: e.shapes,
        reason: describeReason(e.reason),
        ok: e.ok,
        error: e.error ?? '',
        estimatedMs: e.estimatedMs,
        kernelMs: e.kernelMs ?? -1,
        flops: e.flops,
        bytesMoved: e.bytesMoved,
      },
    });
  }
  for (const n of notices) {
    out.push({ name: n.kind, cat: n.backend, ph: 'i', s: 'p', ts: Math.round((n.atMs - originMs) * 1000), pid: 1, tid: tid(n.backend), args: { detail: n.detail, op: n.op ?? '' } });
  }
  const meta: TraceEvent[] = [{ name: 'process_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'tandem' } }];
  for (const [backend, t] of tids) meta.push({ name: 'thread_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: t, args: { name: backend } });
  return { traceEvents: [...meta, ...out], displayTimeUnit: 'ms' };
}
