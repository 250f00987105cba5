import { describe, expect, it } from 'vitest';
import type { OpEvent } from './events.ts';
import { namingProblems, parseExposition } from './exposition-parser.ts';
import { TELEMETRY_METRICS } from './prometheus.ts';
import { Telemetry } from './telemetry.ts';

function event(overrides: Partial<OpEvent> = {}): OpEvent {
  return {
    seq: 1,
    callId: 1,
    attempt: 1,
    op: 'matmul',
    label: undefined,
    dtype: 'f32',
    shapes: '4x4, 4x4',
    backend: 'wasm',
    reason: { kind: 'cost-model', measured: true },
    costsMs: { wasm: 0.1 },
    ok: true,
    error: undefined,
    startMs: 10,
    durationMs: 0.5,
    kernelMs: 0.4,
    estimatedMs: 0.45,
    flops: 128,
    bytesMoved: 64,
    ...overrides,
  };
}

describe('Prometheus exposition', () => {
  it('parses strictly, names follow the conventions, one label for the outcome', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event({ durationMs: 0.02 }));
    t.recordOp(event({ durationMs: 3 }));
    t.recordOp(event({ backend: 'we"ird\\', ok: false }));
    t.recordOp(event({ backend: 'reference', attempt: 2, bytesMoved: 100 }));
    const families = parseExposition(t.toPrometheus());
    expect(Object.fromEntries([...families.values()].map((f) => [f.name, f.type]))).toEqual(TELEMETRY_METRICS);
    expect(namingProblems(families)).toEqual([]);
    const ops = families.get('tandem_ops_total')?.samples ?? [];
    expect(new Set(ops.flatMap((s) => Object.keys(s.labels)))).toEqual(new Set(['op', 'backend', 'outcome']));
    expect(ops.find((s) => s.labels['backend'] === 'wasm' && s.labels['outcome'] === 'ok')?.value).toBe(2);
    expect(ops.find((s) => s.labels['backend'] === 'we"ird\\' && s.labels['outcome'] === 'error')?.value).toBe(1);
    const buckets =
      families
        .get('tandem_op_duration_seconds')
        ?.samples.filter((s) => s.labels['backend'] === 'wasm' && s.name.endsWith('_bucket')) ?? [];
    expect(buckets.find((s) => s.labels['le'] === '0.00005')?.value).toBe(1);
    expect(buckets.find((s) => s.labels['le'] === '0.005')?.value).toBe(2);
    expect(
      families.get('tandem_fallbacks_total')?.samples.find((s) => s.labels['backend'] === 'reference')?.value,
    ).toBe(1);
    expect(
      families.get('tandem_moved_bytes_total')?.samples.find((s) => s.labels['backend'] === 'reference')?.value,
    ).toBe(100);
  });

  it('the parser refuses what Prometheus would: split families, repeated series, broken buckets, bad labels', () => {
    const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 1\n';
    expect(() => parseExposition(ok)).not.toThrow();
    expect(() => parseExposition(`${ok}# TYPE b gauge\nb 1\na_total{x="2"} 1\n`)).toThrow(/not together/);
    expect(() => parseExposition(`${ok}a_total{x="1"} 2\n`)).toThrow(/same series twice/);
    expect(() => parseExposition('a_total{x=1} 1\n')).toThrow(/not quoted/);
    expect(() => parseExposition('a_total{x="1"} one\n')).toThrow(/not a number/);
    const histogram = (inf: number): string =>
      `# TYPE h_seconds histogram\nh_seconds_bucket{le="1"} 2\nh_seconds_bucket{le="+Inf"} ${inf}\nh_seconds_sum 1\nh_seconds_count 3\n`;
    expect(() => parseExposition(histogram(3))).not.toThrow();
    expect(() => parseExposition(histogram(1))).toThrow(/not cumulative/);
    expect(() => parseExposition(histogram(4))).toThrow(/differs from _count/);
    expect(
      namingProblems(
        parseExposition(
          '# HELP tandem_bytes_moved_total B.\n# TYPE tandem_bytes_moved_total counter\ntandem_bytes_moved_total 1\n',
        ),
      ),
    ).toEqual(['tandem_bytes_moved_total: the unit (bytes) goes right before _total']);
    expect(namingProblems(parseExposition('# HELP x_ms X.\n# TYPE x_ms gauge\nx_ms 1\n'))).toEqual([
      'x_ms: use base units (seconds)',
    ]);
  });
});
