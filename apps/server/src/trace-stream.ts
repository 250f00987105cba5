// /trace as a stream (json-stream.ts): the Chrome trace of the events the telemetry ring holds (bounded by its
// capacity), TRACE_SLICE_EVENTS per compute turn, so a full ring (3.4 MB of JSON) no longer holds the event loop
// (docs/decisions.md, issue 29). Core's trace writer makes the events (lanes per backend so concurrent batches nest, fractional
// microseconds), redacted: free text that can carry driver or system details (failure messages, fallback reasons,
// notice details) is left out; /debug has it when enabled.
import type { Readable } from 'node:stream';
import {
  noticeTraceEvent,
  opTraceEvent,
  traceTracks,
  type NoticeEvent,
  type OpEvent,
  type Telemetry,
} from '@tandem/core';
import { jsonStream } from './json-stream.ts';
import type { Turns } from './turns.ts';

/** Events per slice: ~70 KB of JSON. */
export const TRACE_SLICE_EVENTS = 200;

/** A stream of the telemetry's Chrome trace as it is now (a snapshot of the ring). */
export function traceStream(telemetry: Telemetry, turns: Turns): Readable {
  const ops = telemetry.opEvents();
  const notices = telemetry.noticeEvents();
  const tracks = traceTracks(ops, notices, telemetry.originMs);
  const events: readonly (OpEvent | NoticeEvent)[] = [...ops, ...notices];
  const origin = telemetry.originMs;
  const redact = { redact: true } as const;
  const toJson = (e: OpEvent | NoticeEvent): string =>
    JSON.stringify(
      'callId' in e
        ? opTraceEvent(e, origin, tracks.opTid(e), redact)
        : noticeTraceEvent(e, origin, tracks.noticeTid(e), redact),
    );
  const prefix = `{"displayTimeUnit":"ms","traceEvents":[${tracks.meta.map((m) => JSON.stringify(m)).join(',')}${events.length > 0 ? ',' : ''}`;
  return jsonStream(prefix, events, toJson, ']}', turns, TRACE_SLICE_EVENTS);
}
