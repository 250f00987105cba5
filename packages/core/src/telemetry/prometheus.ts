// Prometheus text exposition (format 0.0.4) of the cumulative counters.
import type { Counter } from './telemetry.ts';

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Readonly<Record<string, string>>): string {
  return `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;
}

/** Renders counters as Prometheus metrics: ops, failures, latency histogram, fallbacks, bytes moved. */
export function toPrometheus(counters: readonly Counter[], bucketsS: readonly number[]): string {
  const lines: string[] = [];
  lines.push('# HELP tandem_ops_total Op attempts by op, backend and outcome.', '# TYPE tandem_ops_total counter');
  for (const c of counters) {
    lines.push(`tandem_ops_total${labels({ op: c.op, backend: c.backend, status: 'ok' })} ${c.ok}`);
    lines.push(`tandem_ops_total${labels({ op: c.op, backend: c.backend, status: 'error' })} ${c.failed}`);
  }
  lines.push('# HELP tandem_op_duration_seconds Wall time of successful op attempts.', '# TYPE tandem_op_duration_seconds histogram');
  for (const c of counters) {
    bucketsS.forEach((bound, i) => {
      lines.push(`tandem_op_duration_seconds_bucket${labels({ op: c.op, backend: c.backend, le: String(bound) })} ${c.histogram[i] ?? 0}`);
    });
    lines.push(`tandem_op_duration_seconds_bucket${labels({ op: c.op, backend: c.backend, le: '+Inf' })} ${c.ok}`);
    lines.push(`tandem_op_duration_seconds_sum${labels({ op: c.op, backend: c.backend })} ${c.totalMs / 1000}`);
    lines.push(`tandem_op_duration_seconds_count${labels({ op: c.op, backend: c.backend })} ${c.ok}`);
  }
  lines.push('# HELP tandem_fallbacks_total Calls answered by a backend after another one failed.', '# TYPE tandem_fallbacks_total counter');
  for (const c of counters) lines.push(`tandem_fallbacks_total${labels({ op: c.op, backend: c.backend })} ${c.fallbacksIn}`);
  lines.push('# HELP tandem_bytes_moved_total Bytes moved between host and backend memory.', '# TYPE tandem_bytes_moved_total counter');
  for (const c of counters) lines.push(`tandem_bytes_moved_total${labels({ op: c.op, backend: c.backend })} ${c.bytesMoved}`);
  return `${lines.join('\n')}\n`;
}
