// What the telemetry's counters and events add up to: the summary (by backend kind, backend and op, with shares of
// ops and of time), the debug table, and one row per call (where it ran and why) with its table.
import type { BackendKind } from '../backend.ts';
import { describeReason, formatMs, type SelectionReason } from '../scheduler/selection.ts';
import type { OpEvent } from './events.ts';

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
  /** Why the newest successful attempt ran here (undefined before one did). */
  lastReason: SelectionReason | undefined;
  /** The estimates that decision compared, ms. */
  lastCostsMs: Readonly<Record<string, number>> | undefined;
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
  readonly opShare: number;
  /** Share of the wall time of all successful attempts (0 when none). */
  readonly timeShare: number;
  /** Bytes moved. */
  readonly bytesMoved: number;
}

/** Usage by backend kind, backend and op. */
export interface TelemetrySummary {
  /** Successful attempts in total. */
  readonly totalOps: number;
  /** Wall time of successful attempts in total, ms. */
  readonly totalMs: number;
  /** Failed attempts in total. */
  readonly totalFailures: number;
  /** Calls answered by a fallback backend. */
  readonly fallbacks: number;
  /** Per backend kind (CPU and GPU totals); a backend the telemetry cannot place (no engine) is in neither. */
  readonly byKind: Readonly<Partial<Record<BackendKind, SummaryRow>>>;
  /** Per backend. */
  readonly byBackend: Readonly<Record<string, SummaryRow>>;
  /** Per op. */
  readonly byOp: Readonly<Record<string, SummaryRow>>;
  /** Events dropped from the ring since the last reset (counters still include them). */
  readonly droppedEvents: number;
}

/** Sums counters into a summary; `kindOf` places a backend (undefined: in no kind). */
export function summarise(
  counters: readonly Counter[],
  kindOf: (backend: string) => BackendKind | undefined,
  droppedEvents: number,
): TelemetrySummary {
  let totalOps = 0;
  let totalMs = 0;
  let totalFailures = 0;
  let fallbacks = 0;
  for (const c of counters) {
    totalOps += c.ok;
    totalMs += c.totalMs;
    totalFailures += c.failed;
    fallbacks += c.fallbacksIn;
  }
  const row = (cs: readonly Counter[]): SummaryRow => rowOf(cs, totalOps, totalMs);
  const table = (key: (c: Counter) => string | undefined): Record<string, SummaryRow> => {
    const groups = new Map<string, Counter[]>();
    for (const c of counters) {
      const k = key(c);
      if (k !== undefined) groups.set(k, [...(groups.get(k) ?? []), c]);
    }
    return Object.fromEntries([...groups].map(([k, cs]) => [k, row(cs)]));
  };
  return {
    totalOps,
    totalMs,
    totalFailures,
    fallbacks,
    byKind: table((c) => kindOf(c.backend)),
    byBackend: table((c) => c.backend),
    byOp: table((c) => c.op),
    droppedEvents,
  };
}

/** The totals of `cs`, with shares of `totalOps` and `totalMs`. */
function rowOf(cs: readonly Counter[], totalOps: number, totalMs: number): SummaryRow {
  let ops = 0;
  let ms = 0;
  let failures = 0;
  let bytesMoved = 0;
  for (const c of cs) {
    ops += c.ok;
    ms += c.totalMs;
    failures += c.failed;
    bytesMoved += c.bytesMoved;
  }
  return {
    ops,
    failures,
    totalMs: ms,
    meanMs: ops === 0 ? 0 : ms / ops,
    opShare: totalOps === 0 ? 0 : ops / totalOps,
    timeShare: totalMs === 0 ? 0 : ms / totalMs,
    bytesMoved,
  };
}

/** The summary as a fixed-width table: totals, then kind > backend > op rows with ops, time shares and the last reason. */
export function debugTable(
  summary: TelemetrySummary,
  counters: readonly Counter[],
  kindOf: (backend: string) => BackendKind | undefined,
): string {
  const s = summary;
  const kindShares = (['cpu', 'gpu'] as const)
    .map((k) => [k, s.byKind[k]] as const)
    .filter((entry): entry is readonly [BackendKind, SummaryRow] => entry[1] !== undefined)
    .map(([k, r]) => `${k} ${r.ops} ops ${percent(r.opShare)}, ${formatMs(r.totalMs)} ${percent(r.timeShare)}`);
  const lines = [
    `ops ${s.totalOps}, time ${formatMs(s.totalMs)}, failures ${s.totalFailures}, fallbacks ${s.fallbacks}, dropped events ${s.droppedEvents}`,
    ...(kindShares.length === 0 ? [] : [kindShares.join('; ')]),
    pad('kind / backend / op', 26) +
      pad('ops', 8) +
      pad('fail', 6) +
      pad('mean', 11) +
      pad('total', 11) +
      pad('ops %', 8) +
      pad('time %', 8) +
      pad('bytes', 12) +
      'last reason',
  ];
  const emit = (name: string, r: SummaryRow, reason = ''): void => {
    lines.push(
      pad(name, 26) +
        pad(String(r.ops), 8) +
        pad(String(r.failures), 6) +
        pad(formatMs(r.meanMs), 11) +
        pad(formatMs(r.totalMs), 11) +
        pad(percent(r.opShare), 8) +
        pad(percent(r.timeShare), 8) +
        (pad(String(r.bytesMoved), 12) + reason).trimEnd(),
    );
  };
  for (const kind of [...(['cpu', 'gpu'] as const), undefined]) {
    const backends = Object.keys(s.byBackend).filter((b) => kindOf(b) === kind);
    if (backends.length === 0) continue;
    const kindRow = kind === undefined ? undefined : s.byKind[kind];
    if (kind !== undefined && kindRow !== undefined) emit(kind, kindRow);
    const indent = kind === undefined ? '' : '  ';
    for (const backend of backends) {
      const row = s.byBackend[backend];
      if (row !== undefined) emit(indent + backend, row);
      for (const c of counters) {
        if (c.backend !== backend) continue;
        emit(
          `${indent}  ${c.op}`,
          rowOf([c], s.totalOps, s.totalMs),
          c.lastReason === undefined ? '' : describeReason(c.lastReason, c.lastCostsMs),
        );
      }
    }
  }
  lines.push('all backends');
  for (const [op, r] of Object.entries(s.byOp)) emit(`  ${op}`, r);
  return lines.join('\n');
}

/** One call as it ended: where it ran, why, and how long it took. */
export interface DecisionRow {
  /** The call (shared by its attempts' events). */
  readonly callId: number;
  /** Op id. */
  readonly op: string;
  /** The caller's label, when given. */
  readonly label: string | undefined;
  /** Shapes of the inputs, e.g. "64x64, 64x64". */
  readonly shapes: string;
  /** Dtype of the first input. */
  readonly dtype: string;
  /** The backend that answered (or, when every attempt failed, the last one tried). */
  readonly backend: string;
  /** Whether the call succeeded. */
  readonly ok: boolean;
  /** Why it ran there, in words (describeReason with the estimates compared). */
  readonly reason: string;
  /** Why it ran there, as data. */
  readonly reasonKind: SelectionReason['kind'];
  /** Backends that failed the call before, in order. */
  readonly failed: readonly string[];
  /** Wall time of every attempt, ms. */
  readonly ms: number;
  /** Clock time the call's first attempt started, ms. */
  readonly startMs: number;
}

/** One row per call from events (oldest first; a call's attempts are consecutive or interleaved with others'). */
export function decisionsOf(events: readonly OpEvent[]): DecisionRow[] {
  const calls = new Map<number, OpEvent[]>();
  for (const e of events) {
    const attempts = calls.get(e.callId);
    if (attempts === undefined) calls.set(e.callId, [e]);
    else attempts.push(e);
  }
  const rows: DecisionRow[] = [];
  for (const attempts of calls.values()) {
    const first = attempts[0];
    const last = attempts[attempts.length - 1];
    if (first === undefined || last === undefined) continue;
    rows.push({
      callId: last.callId,
      op: last.op,
      label: last.label,
      shapes: last.shapes,
      dtype: last.dtype,
      backend: last.backend,
      ok: last.ok,
      reason: describeReason(last.reason, last.costsMs),
      reasonKind: last.reason.kind,
      failed: attempts.filter((a) => !a.ok).map((a) => a.backend),
      ms: attempts.reduce((sum, a) => sum + a.durationMs, 0),
      startMs: first.startMs,
    });
  }
  return rows;
}

/** Decision rows as a fixed-width table: op (and label), shapes, backend, time, reason. */
export function decisionsTable(rows: readonly DecisionRow[]): string {
  const lines = [`${pad('op', 28) + pad('shapes', 24) + pad('backend', 12) + pad('time', 11)}reason`];
  for (const r of rows) {
    const op = r.label === undefined ? r.op : `${r.label} (${r.op})`;
    const backend = r.ok ? r.backend : `${r.backend} (failed)`;
    lines.push(pad(op, 28) + pad(r.shapes, 24) + pad(backend, 12) + pad(formatMs(r.ms), 11) + r.reason);
  }
  return lines.join('\n');
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length);
}
