// Checks the telemetry's account of failures: every failed attempt carries its error, and the call's next attempt
// names that backend and that error as the reason it was chosen (an 'error-fallback'). A failure the telemetry
// does not explain this way is a silent fallback, which the issue forbids.
import type { OpEvent } from '@tandem/core';

/** What the audit found. */
export interface FallbackAudit {
  /** Failed attempts in the events. */
  readonly failed: number;
  /** Failed attempts whose error message is not empty. */
  readonly withCause: number;
  /** Failed attempts followed, in the same call, by an attempt whose reason is that failure. */
  readonly explained: number;
  /** The first few failures that were not explained, described. */
  readonly unexplained: string[];
}

/** Audits the op events of one engine (the telemetry ring must have held every event of the run). */
export function auditFallbacks(events: readonly OpEvent[]): FallbackAudit {
  const byAttempt = new Map<string, OpEvent>();
  for (const e of events) byAttempt.set(`${e.callId}/${e.attempt}`, e);
  let failed = 0;
  let withCause = 0;
  let explained = 0;
  const unexplained: string[] = [];
  for (const e of events) {
    if (e.ok) continue;
    failed++;
    if (e.error !== undefined && e.error.length > 0) withCause++;
    const next = byAttempt.get(`${e.callId}/${e.attempt + 1}`);
    const reason = next?.reason;
    if (
      reason !== undefined &&
      reason.kind === 'error-fallback' &&
      reason.failed === e.backend &&
      reason.error === e.error
    )
      explained++;
    else if (unexplained.length < 5)
      unexplained.push(
        `call ${e.callId} attempt ${e.attempt} (${e.op} on ${e.backend}: ${e.error ?? 'no error'}) -> ${next === undefined ? 'no next attempt' : `next reason ${reason?.kind ?? '?'}`}`,
      );
  }
  return { failed, withCause, explained, unexplained };
}
