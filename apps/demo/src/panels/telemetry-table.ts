// The table of engine calls, newest first: which backend ran each attempt, why, and how long; fallbacks and
// failures are marked. Backend notices (unavailable, unhealthy, recovered, circuit changes) get their own list.
import type { NoticeEvent } from '@tandem/core';
import { el, formatDuration } from '../dom.ts';
import type { ShownOp } from '../worker/protocol.ts';
import { backendColour } from './backend-colours.ts';

/** Rows kept in the table of every attempt. */
const MAX_ROWS = 60;
/** Rows kept in the table of fallbacks and failures (these must not scroll away under a busy workload). */
const MAX_EXCEPTION_ROWS = 100;

/** Renders attempts into a <tbody> and notices into a list. */
export class TelemetryTable {
  private readonly body: HTMLTableSectionElement;
  private readonly exceptions: HTMLTableSectionElement;
  private readonly notices: HTMLUListElement;
  private readonly counts: HTMLElement;
  private readonly seenNotices = new Set<number>();
  private attempts = 0;
  private fallbacks = 0;
  private failures = 0;

  constructor(
    body: HTMLTableSectionElement,
    exceptions: HTMLTableSectionElement,
    notices: HTMLUListElement,
    counts: HTMLElement,
  ) {
    this.body = body;
    this.exceptions = exceptions;
    this.notices = notices;
    this.counts = counts;
  }

  /** Adds a batch of attempts at the top, in one DOM update (only the newest MAX_ROWS of a large batch are drawn). */
  addAll(events: readonly ShownOp[]): void {
    const rows: HTMLTableRowElement[] = [];
    const exceptions: Node[] = [];
    events.forEach((event, i) => {
      this.attempts++;
      if (event.attempt > 1 && event.ok) this.fallbacks++;
      if (!event.ok) this.failures++;
      const kind = !event.ok ? 'failed' : event.attempt > 1 ? 'fallback' : 'ok';
      if (kind === 'ok' && i < events.length - MAX_ROWS) return;
      const row = this.row(event, kind);
      if (i >= events.length - MAX_ROWS) rows.push(row);
      if (kind !== 'ok') exceptions.push(row.cloneNode(true));
    });
    this.body.prepend(...rows.reverse());
    while (this.body.rows.length > MAX_ROWS) this.body.deleteRow(-1);
    if (exceptions.length > 0) {
      this.exceptions.prepend(...exceptions.reverse());
      while (this.exceptions.rows.length > MAX_EXCEPTION_ROWS) this.exceptions.deleteRow(-1);
    }
    this.counts.textContent = `${this.attempts} attempts · ${this.fallbacks} answered by a fallback · ${this.failures} failed attempts (each retried elsewhere)`;
    this.counts.dataset['fallbacks'] = String(this.fallbacks);
  }

  private row(event: ShownOp, kind: 'ok' | 'failed' | 'fallback'): HTMLTableRowElement {
    return el('tr', { class: `event-${kind}`, 'data-backend': event.backend, 'data-reason': event.reason.kind }, [
      el('td', { text: String(event.callId) }),
      el('td', { text: event.label === undefined ? event.op : `${event.op} · ${event.label}` }),
      el('td', { text: event.shapes }),
      el('td', {}, [
        el('span', { class: 'badge', style: `background:${backendColour(event.backend)}`, text: event.backend }),
      ]),
      el('td', { class: 'reason', text: event.why }),
      el('td', { class: 'num', text: formatDuration(event.durationMs) }),
      el('td', {
        text:
          kind === 'failed'
            ? `failed: ${event.error ?? ''}`
            : kind === 'fallback'
              ? `fallback (attempt ${event.attempt})`
              : 'ok',
      }),
    ]);
  }

  /** Shows a notice (once: notices are pushed as they happen, and replayed ones are skipped). */
  addNotice(n: NoticeEvent): void {
    if (this.seenNotices.has(n.seq)) return;
    this.seenNotices.add(n.seq);
    this.notices.prepend(
      el('li', { class: `notice-${n.kind}`, 'data-kind': n.kind }, [
        el('strong', { text: `${n.backend} · ${n.kind}` }),
        ` ${n.op === undefined ? '' : `(${n.op}) `}${n.detail}`,
      ]),
    );
  }
}
