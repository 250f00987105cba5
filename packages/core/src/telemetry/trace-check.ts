// Checks a Chrome trace the way Perfetto's JSON importer reads it, for tests of every trace writer (core's
// toChromeTrace, the server's /trace): complete ('X') events on one thread must nest (an event that starts inside
// another ends inside it), timestamps and durations are finite and not negative, every thread is named, and no
// argument holds a sentinel (-1, '', null) in place of being absent. Not exported from the package: test tooling.

/** The fields of a trace event the check reads. */
export interface CheckedEvent {
  /** Event name. */
  readonly name: string;
  /** Phase. */
  readonly ph: string;
  /** Timestamp, us. */
  readonly ts: number;
  /** Duration, us (X only). */
  readonly dur?: number;
  /** Process id. */
  readonly pid: number;
  /** Thread id. */
  readonly tid: number;
  /** Arguments. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** Everything Perfetto would draw wrongly or that holds a sentinel; [] when the trace is sound. */
export function traceProblems(events: readonly CheckedEvent[]): string[] {
  const problems: string[] = [];
  const named = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, CheckedEvent[]>();
  for (const e of events) {
    if (e.ph === 'M') continue;
    const thread = `${e.pid}:${e.tid}`;
    if (!named.has(thread)) problems.push(`${e.name} at ${e.ts}: thread ${thread} has no thread_name`);
    if (!Number.isFinite(e.ts) || e.ts < 0) problems.push(`${e.name}: ts ${e.ts}`);
    for (const [key, value] of Object.entries(e.args ?? {})) {
      if (value === -1 || value === '' || value === null)
        problems.push(`${e.name} at ${e.ts}: args.${key} is the sentinel ${JSON.stringify(value)}`);
    }
    if (e.ph !== 'X') continue;
    if (e.dur === undefined || !Number.isFinite(e.dur) || e.dur < 0)
      problems.push(`${e.name} at ${e.ts}: dur ${String(e.dur)}`);
    byThread.set(thread, [...(byThread.get(thread) ?? []), e]);
  }
  for (const [thread, slices] of byThread) {
    const sorted = [...slices].sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const open: number[] = []; // ends of the enclosing slices, innermost last
    for (const s of sorted) {
      while (open.length > 0 && (open.at(-1) ?? 0) <= s.ts) open.pop();
      const end = s.ts + (s.dur ?? 0);
      const parentEnd = open.at(-1);
      if (parentEnd !== undefined && end > parentEnd)
        problems.push(
          `thread ${thread}: ${s.name} [${s.ts}, ${end}] overlaps an enclosing slice ending at ${parentEnd} without nesting in it`,
        );
      open.push(end);
    }
  }
  return problems;
}
