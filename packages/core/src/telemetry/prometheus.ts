// Prometheus text exposition (format 0.0.4) of the cumulative counters. One contract for every exporter (a server
// appends this text to its own registry's): the outcome of an attempt is the label `outcome` ("ok" or "error"),
// names carry their unit before `_total`, and every family has HELP and TYPE once, its samples together.
import type { Counter } from './telemetry.ts';

/** The metric families this exposition writes, name -> type (an exporter checks its own names against them). */
export const TELEMETRY_METRICS: Readonly<Record<string, 'counter' | 'histogram'>> = {
  tandem_ops_total: 'counter',
  tandem_op_duration_seconds: 'histogram',
  tandem_fallbacks_total: 'counter',
  tandem_moved_bytes_total: 'counter',
};

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Readonly<Record<string, string>>): string {
  return `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;
}

/** Renders counters as Prometheus metrics: attempts by outcome, latency histogram, fallbacks, bytes moved. */
export function toPrometheus(counters: readonly Counter[], bucketsS: readonly number[]): string {
  const lines: string[] = [];
  lines.push(
    '# HELP tandem_ops_total Op attempts by op, backend and outcome (ok or error).',
    '# TYPE tandem_ops_total counter',
  );
  for (const c of counters) {
    lines.push(`tandem_ops_total${labels({ op: c.op, backend: c.backend, outcome: 'ok' })} ${c.ok}`);
    lines.push(`tandem_ops_total${labels({ op: c.op, backend: c.backend, outcome: 'error' })} ${c.failed}`);
  }
  lines.push(
    '# HELP tandem_op_duration_seconds Wall time of successful op attempts, transfers included.',
    '# TYPE tandem_op_duration_seconds histogram',
  );
  for (const c of counters) {
    bucketsS.forEach((bound, i) => {
      lines.push(
        `tandem_op_duration_seconds_bucket${labels({ op: c.op, backend: c.backend, le: String(bound) })} ${c.histogram[i] ?? 0}`,
      );
    });
    lines.push(`tandem_op_duration_seconds_bucket${labels({ op: c.op, backend: c.backend, le: '+Inf' })} ${c.ok}`);
    lines.push(`tandem_op_duration_seconds_sum${labels({ op: c.op, backend: c.backend })} ${c.totalMs / 1000}`);
    lines.push(`tandem_op_duration_seconds_count${labels({ op: c.op, backend: c.backend })} ${c.ok}`);
  }
  lines.push(
    '# HELP tandem_fallbacks_total Calls answered by this backend after another one failed.',
    '# TYPE tandem_fallbacks_total counter',
  );
  for (const c of counters)
    lines.push(`tandem_fallbacks_total${labels({ op: c.op, backend: c.backend })} ${c.fallbacksIn}`);
  lines.push(
    '# HELP tandem_moved_bytes_total Bytes moved between host and backend memory by op attempts.',
    '# TYPE tandem_moved_bytes_total counter',
  );
  for (const c of counters)
    lines.push(`tandem_moved_bytes_total${labels({ op: c.op, backend: c.backend })} ${c.bytesMoved}`);
  return `${lines.join('\n')}\n`;
}
