// /trace as a stream (json-stream.ts): the Chrome trace of the events the telemetry ring holds (bounded by its
// capacity), TRACE_SLICE_EVENTS per compute turn, so a full ring (3.4 MB of JSON) no longer holds the event loop for
// 60-80 ms. Free text that can carry driver or system details (failure messages, fallback reasons, notice details)
// is left out: /debug has it when enabled.
import type { Readable } from 'node:stream';
import type { NoticeEvent, OpEvent, SelectionReason, Telemetry, TraceEvent } from '@tandem/core';
import { describeReason } from '@tandem/core';
import { jsonStream } from './json-stream.ts';
import type { Turns } from './turns.ts';

/** Events per slice: ~70 KB of JSON. */
export const TRACE_SLICE_EVENTS = 200;

/** Reasons whose text is made of numbers and backend names only; the others carry error or platform messages. */
const PLAIN_REASONS: ReadonlySet<SelectionReason['kind']> = new Set(['gpu-available', 'cost-model', 'memory-constraint', 'user-preference', 'force-cpu', 'below-min-batch', 'circuit-open', 'exploring', 'hysteresis']);

/** A reason's text when it holds no free text, else its kind alone. */
function publicReason(reason: SelectionReason): string {
  return PLAIN_REASONS.has(reason.kind) ? describeReason(reason) : reason.kind;
}

/** One op attempt as a complete ('X') event on its backend's track; a failure says only that it failed. */
function opTraceEvent(e: OpEvent, originMs: number, tid: number): TraceEvent {
  return {
    name: e.label === undefined ? e.op : `${e.label} (${e.op})`,
    cat: e.backend,
    ph: 'X',
    ts: Math.round((e.startMs - originMs) * 1000),
    dur: Math.max(1, Math.round(e.durationMs * 1000)),
    pid: 1,
    tid,
    args: {
      call: e.callId,
      attempt: e.attempt,
      dtype: e.dtype,
      shapes: e.shapes,
      reason: publicReason(e.reason),
      ok: e.ok,
      estimatedMs: e.estimatedMs,
      kernelMs: e.kernelMs ?? -1,
      flops: e.flops,
      bytesMoved: e.bytesMoved,
    },
  };
}

/** A backend notice as an instant ('i') event, without its detail text. */
function noticeTraceEvent(n: NoticeEvent, originMs: number, tid: number): TraceEvent {
  return { name: n.kind, cat: n.backend, ph: 'i', s: 'p', ts: Math.round((n.atMs - originMs) * 1000), pid: 1, tid, args: { op: n.op ?? '' } };
}

/** A stream of the telemetry's Chrome trace as it is now (a snapshot of the ring). */
export function traceStream(telemetry: Telemetry, turns: Turns): Readable {
  const events: readonly (OpEvent | NoticeEvent)[] = [...telemetry.opEvents(), ...telemetry.noticeEvents()];
  const tids = new Map<string, number>();
  for (const e of events) if (!tids.has(e.backend)) tids.set(e.backend, tids.size + 1);
  const tid = (backend: string): number => tids.get(backend) ?? 0;
  const meta: TraceEvent[] = [{ name: 'process_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'tandem' } }];
  for (const [backend, t] of tids) meta.push({ name: 'thread_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: t, args: { name: backend } });
  const origin = telemetry.originMs;
  const toJson = (e: OpEvent | NoticeEvent): string => JSON.stringify('callId' in e ? opTraceEvent(e, origin, tid(e.backend)) : noticeTraceEvent(e, origin, tid(e.backend)));
  const prefix = `{"displayTimeUnit":"ms","traceEvents":[${meta.map((m) => JSON.stringify(m)).join(',')}${events.length > 0 ? ',' : ''}`;
  return jsonStream(prefix, events, toJson, ']}', turns, TRACE_SLICE_EVENTS);
}
