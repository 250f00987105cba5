import { describe, expect, it } from 'vitest';
import type { OpEvent } from './events.ts';
import { Telemetry } from './telemetry.ts';
import { traceProblems } from './trace-check.ts';

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

/** The trace as a viewer reads it: through JSON. */
function traceOf(
  t: Telemetry,
  redact = false,
): { ph: string; name: string; ts: number; dur?: number; pid: number; tid: number; args: Record<string, unknown> }[] {
  return JSON.parse(t.toChromeTrace({ redact })).traceEvents;
}

describe('Chrome trace', () => {
  it('one named track per backend, slices in recorded order, notices as instants', () => {
    const t = new Telemetry(() => 10);
    t.recordOp(event({ startMs: 12, durationMs: 0.25 }));
    t.recordOp(event({ seq: 2, callId: 2, backend: 'webgpu', startMs: 13, label: 'layer0.q_proj' }));
    t.notice('circuit-open', 'webgpu', 'success rate 0.50', 'matmul');
    const events = traceOf(t);
    expect(events.filter((e) => e.name === 'thread_name').map((e) => e.args['name'])).toEqual(['wasm', 'webgpu']);
    const ops = events.filter((e) => e.ph === 'X');
    expect(ops[0]).toMatchObject({ name: 'matmul', ts: 2000, dur: 250, pid: 1 });
    expect(ops[0]?.args['reason']).toMatch(/cost model \(measured\)/);
    expect(ops[1]?.name).toBe('layer0.q_proj (matmul)');
    expect(events.find((e) => e.ph === 'i')).toMatchObject({
      name: 'circuit-open',
      args: { op: 'matmul', detail: 'success rate 0.50' },
    });
    expect(traceProblems(events)).toEqual([]);
  });

  it('keeps sub-microsecond times: a 0.2 us cached call is 0.2 us long, not rounded to 0 or 1', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event({ startMs: 1.0004, durationMs: 0.0002 }));
    const [op] = traceOf(t).filter((e) => e.ph === 'X');
    expect(op?.ts).toBeCloseTo(1000.4, 9);
    expect(op?.dur).toBeCloseTo(0.2, 9);
  });

  it('leaves out what has no value instead of writing a sentinel', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event({ ok: false, kernelMs: undefined, error: 'device lost' }));
    t.recordOp(event({ seq: 2, startMs: 11, kernelMs: undefined }));
    t.notice('backend-ready', 'wasm', 'ready');
    const events = traceOf(t);
    const ops = events.filter((e) => e.ph === 'X');
    expect(ops[0]?.args).not.toHaveProperty('kernelMs');
    expect(ops[0]?.args['error']).toBe('device lost');
    expect(ops[1]?.args).not.toHaveProperty('error');
    expect(events.find((e) => e.ph === 'i')?.args).not.toHaveProperty('op');
    expect(traceProblems(events)).toEqual([]);
  });

  it('puts concurrent calls of one backend on lanes of their own, so every track nests', () => {
    const t = new Telemetry(() => 0);
    // Three overlapping calls on wasm (a Promise.all), then one after them all; one webgpu call alongside.
    t.recordOp(event({ seq: 1, callId: 1, startMs: 1, durationMs: 3 }));
    t.recordOp(event({ seq: 2, callId: 2, startMs: 2, durationMs: 3 }));
    t.recordOp(event({ seq: 3, callId: 3, startMs: 2.5, durationMs: 0.1 }));
    t.recordOp(event({ seq: 4, callId: 4, startMs: 6, durationMs: 1 }));
    t.recordOp(event({ seq: 5, callId: 5, backend: 'webgpu', startMs: 1.5, durationMs: 4 }));
    const events = traceOf(t);
    const lanes = events.filter((e) => e.name === 'thread_name').map((e) => e.args['name']);
    expect(lanes).toEqual(['wasm', 'wasm (concurrent 2)', 'wasm (concurrent 3)', 'webgpu']);
    const tidOf = (call: number): number | undefined =>
      events.find((e) => e.ph === 'X' && e.args['call'] === call)?.tid;
    expect(new Set([tidOf(1), tidOf(2), tidOf(3)]).size).toBe(3);
    expect(tidOf(4)).toBe(tidOf(1)); // the first lane is free again
    expect(traceProblems(events)).toEqual([]);
  });

  it('the check itself catches overlapping slices on one thread, sentinels and unnamed threads', () => {
    const problems = traceProblems([
      { name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid: 1, args: { name: 'wasm' } },
      { name: 'a', ph: 'X', ts: 0, dur: 10, pid: 1, tid: 1, args: {} },
      { name: 'b', ph: 'X', ts: 5, dur: 10, pid: 1, tid: 1, args: { kernelMs: -1 } },
      { name: 'c', ph: 'X', ts: 0, dur: 1, pid: 1, tid: 2, args: {} },
    ]);
    expect(problems).toEqual([
      'b at 5: args.kernelMs is the sentinel -1',
      'c at 0: thread 1:2 has no thread_name',
      'thread 1:1: b [5, 15] overlaps an enclosing slice ending at 10 without nesting in it',
    ]);
  });

  it('redacted: no failure message, no notice detail, a reason with free text reduced to its kind', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event({ ok: false, error: 'driver 535.1 said no' }));
    t.recordOp(
      event({
        seq: 2,
        attempt: 2,
        backend: 'reference',
        reason: { kind: 'error-fallback', failed: 'wasm', error: 'driver 535.1 said no' },
      }),
    );
    t.notice('backend-unhealthy', 'wasm', 'driver 535.1 said no');
    const text = t.toChromeTrace({ redact: true });
    expect(text).not.toContain('535.1');
    expect(text).toContain('"reason":"error-fallback"');
    expect(t.toChromeTrace()).toContain('535.1');
  });
});
