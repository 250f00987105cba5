// /trace as a stream: the Chrome trace of the events the telemetry ring holds (bounded by its capacity), written
// in slices of TRACE_SLICE_EVENTS, each slice on its own compute turn, so a full ring (3.4 MB of JSON) no longer
// holds the event loop for 60-80 ms, and a client that stops reading holds at most a slice in memory until the
// socket's inactivity timeout drops it. Free text that can carry driver or system details (failure messages,
// fallback reasons, notice details) is left out: /debug has it when enabled.
import { Readable } from 'node:stream';
import type { NoticeEvent, OpEvent, SelectionReason, Telemetry, TraceEvent } from '@tandem/core';
import { describeReason } from '@tandem/core';
import type { Turns } from './turns.ts';

/** Events per slice: ~70 KB of JSON, about a millisecond to build. */
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

/** The JSON text of the trace, slice by slice, each slice after a compute turn. */
async function* traceText(events: readonly OpEvent[], notices: readonly NoticeEvent[], originMs: number, turns: Turns): AsyncGenerator<string> {
  const tids = new Map<string, number>();
  for (const backend of [...events.map((e) => e.backend), ...notices.map((n) => n.backend)]) if (!tids.has(backend)) tids.set(backend, tids.size + 1);
  const tid = (backend: string): number => tids.get(backend) ?? 0;
  const meta: TraceEvent[] = [{ name: 'process_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'tandem' } }];
  for (const [backend, t] of tids) meta.push({ name: 'thread_name', cat: '', ph: 'M', ts: 0, pid: 1, tid: t, args: { name: backend } });
  yield `{"displayTimeUnit":"ms","traceEvents":[${meta.map((m) => JSON.stringify(m)).join(',')}`;
  for (let start = 0; start < events.length; start += TRACE_SLICE_EVENTS) {
    await turns.next();
    const slice = events.slice(start, start + TRACE_SLICE_EVENTS).map((e) => `,${JSON.stringify(opTraceEvent(e, originMs, tid(e.backend)))}`);
    yield slice.join('');
  }
  yield `${notices.map((n) => `,${JSON.stringify(noticeTraceEvent(n, originMs, tid(n.backend)))}`).join('')}]}`;
}

/** A stream of the telemetry's Chrome trace as it is now (a snapshot of the ring), buffering at most one slice. */
export function traceStream(telemetry: Telemetry, turns: Turns): Readable {
  return Readable.from(traceText(telemetry.opEvents(), telemetry.noticeEvents(), telemetry.originMs, turns), { highWaterMark: 1, objectMode: true });
}
