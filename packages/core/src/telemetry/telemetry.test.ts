import { describe, expect, it } from 'vitest';
import type { OpEvent } from './events.ts';
import { Ring } from './ring.ts';
import { Telemetry, type TelemetryView } from './telemetry.ts';

/** An engine's view with a CPU backend 'wasm' and a GPU backend 'webgpu'. */
const VIEW: TelemetryView = {
  kindOf: (b) => (b === 'wasm' ? 'cpu' : b === 'webgpu' ? 'gpu' : undefined),
  gpuAvailable: () => true,
  gpuSpeedup: () => 2,
};

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

describe('Ring', () => {
  it('keeps the newest `capacity` items and counts the dropped ones', () => {
    const r = new Ring<number>(3);
    for (let i = 0; i < 10; i++) r.push(i);
    expect(r.toArray()).toEqual([7, 8, 9]);
    expect(r.dropped).toBe(7);
    expect(() => new Ring(0)).toThrow(RangeError);
  });

  it('reads back from the newest item across the wrap, and nothing past the oldest held', () => {
    const r = new Ring<number>(3);
    expect(r.fromNewest(0)).toBeUndefined();
    for (let i = 0; i < 5; i++) r.push(i);
    expect([0, 1, 2].map((back) => r.fromNewest(back))).toEqual([4, 3, 2]);
    expect(r.fromNewest(3)).toBeUndefined();
    expect(r.fromNewest(-1)).toBeUndefined();
  });
});

describe('Telemetry', () => {
  it('summarises to zeros, never NaN, when nothing ran', () => {
    const s = new Telemetry(() => 0).summary();
    expect(s).toEqual({
      totalOps: 0,
      totalMs: 0,
      totalFailures: 0,
      fallbacks: 0,
      byKind: {},
      byBackend: {},
      byOp: {},
      droppedEvents: 0,
    });
    expect(new Telemetry(() => 0).debugTable()).not.toMatch(/NaN/);
  });

  it('tells subscribers of every op recorded until they unsubscribe; a throwing listener fails nothing', () => {
    const t = new Telemetry(() => 0);
    const seen: number[] = [];
    const stop = t.subscribe((e) => seen.push(e.seq));
    t.subscribe(() => {
      throw new Error('listener bug');
    });
    t.recordOp(event({ seq: 1 }));
    t.recordOp(event({ seq: 2 }));
    stop();
    t.recordOp(event({ seq: 3 }));
    expect(seen).toEqual([1, 2]);
    expect(t.summary().totalOps).toBe(3);
  });

  it('gives the newest event and the attempts of the newest call, oldest first, without the earlier calls', () => {
    const t = new Telemetry(() => 0, { capacity: 4 });
    expect(t.latestOpEvent()).toBeUndefined();
    expect(t.latestCallEvents()).toEqual([]);
    t.recordOp(event({ seq: 1, callId: 7 }));
    t.recordOp(event({ seq: 2, callId: 8, attempt: 1, backend: 'webgpu', ok: false }));
    t.recordOp(event({ seq: 3, callId: 8, attempt: 2, backend: 'wasm' }));
    expect(t.latestOpEvent()?.seq).toBe(3);
    expect(t.latestCallEvents().map((e) => e.seq)).toEqual([2, 3]);
    // A call whose attempts fill the whole ring: all that is held, no more.
    for (let s = 4; s <= 9; s++) t.recordOp(event({ seq: s, callId: 9 }));
    expect(t.latestCallEvents().map((e) => e.seq)).toEqual([6, 7, 8, 9]);
  });

  it('stays bounded while counters keep the totals', () => {
    const t = new Telemetry(() => 0, { capacity: 100 });
    for (let i = 0; i < 1000; i++) t.recordOp(event({ seq: i }));
    expect(t.opEvents()).toHaveLength(100);
    expect(t.summary().totalOps).toBe(1000);
    expect(t.summary().droppedEvents).toBe(900);
  });

  it('summarises by backend and op with shares that add up', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event());
    t.recordOp(event({ backend: 'webgpu', durationMs: 1.5 }));
    t.recordOp(event({ backend: 'webgpu', op: 'add', ok: false, error: 'lost' }));
    t.recordOp(
      event({
        backend: 'wasm',
        op: 'add',
        attempt: 2,
        reason: { kind: 'error-fallback', failed: 'webgpu', error: 'lost' },
      }),
    );
    const s = t.summary();
    expect(s.totalOps).toBe(3);
    expect(s.totalFailures).toBe(1);
    expect(s.fallbacks).toBe(1);
    expect(s.byBackend['webgpu']).toMatchObject({ ops: 1, failures: 1, totalMs: 1.5, meanMs: 1.5 });
    expect(Object.values(s.byBackend).reduce((a, r) => a + r.opShare, 0)).toBeCloseTo(1, 12);
    expect(t.debugTable()).toMatch(/webgpu\s+1\s+1/);
  });

  it('tells notice subscribers of every notice until they unsubscribe; a throwing listener fails nothing', () => {
    const t = new Telemetry(() => 5);
    const seen: string[] = [];
    const stop = t.subscribeNotices((n) => seen.push(`${n.backend} ${n.kind}`));
    t.subscribeNotices(() => {
      throw new Error('listener bug');
    });
    t.notice('backend-unhealthy', 'webgpu', 'device lost');
    stop();
    t.notice('backend-recovered', 'webgpu', 'new device');
    expect(seen).toEqual(['webgpu backend-unhealthy']);
    expect(t.noticeEvents().map((n) => n.kind)).toEqual(['backend-unhealthy', 'backend-recovered']);
  });

  it('reset() drops events, notices and counters and zeroes droppedEvents', () => {
    const t = new Telemetry(() => 0, { capacity: 2 });
    for (let i = 0; i < 5; i++) t.recordOp(event({ seq: i }));
    t.notice('backend-ready', 'wasm', 'cpu');
    expect(t.summary().droppedEvents).toBe(3);
    t.reset();
    expect(t.summary()).toEqual(new Telemetry(() => 0).summary());
    expect([t.opEvents(), t.noticeEvents(), t.counterList()]).toEqual([[], [], []]);
    t.recordOp(event());
    expect(t.summary()).toMatchObject({ totalOps: 1, droppedEvents: 0 });
  });

  it("at level 'counters' keeps no events yet counts exactly what level 'events' counts", () => {
    const full = new Telemetry(() => 0, { capacity: 2 });
    const counters = new Telemetry(() => 0, { capacity: 2, level: 'counters' });
    expect([full.keepsEvents, counters.keepsEvents]).toEqual([true, false]);
    const attempts = [
      event(),
      event({ backend: 'webgpu', durationMs: 0.02 }),
      event({ ok: false, error: 'lost' }),
      event({ attempt: 2, durationMs: 7 }),
    ];
    for (const e of attempts) {
      full.recordOp(e);
      counters.count(e);
    }
    expect(counters.opEvents()).toEqual([]);
    expect(counters.latestOpEvent()).toBeUndefined();
    expect(counters.toPrometheus()).toBe(full.toPrometheus());
    expect(counters.summary()).toEqual({ ...full.summary(), droppedEvents: 0 });
    // A subscriber still hears every attempt; nothing is kept.
    const heard: number[] = [];
    counters.subscribe((e) => heard.push(e.seq));
    expect(counters.keepsEvents).toBe(true);
    counters.recordOp(event({ seq: 42 }));
    expect([heard, counters.opEvents()]).toEqual([[42], []]);
  });

  it('totals by backend kind with shares of ops and of time, and a debug table with both and the last reason', () => {
    const t = new Telemetry(() => 0, { view: VIEW });
    t.recordOp(event({ durationMs: 1 }));
    t.recordOp(event({ durationMs: 1, op: 'add' }));
    t.recordOp(event({ durationMs: 1, op: 'add' }));
    t.recordOp(
      event({
        backend: 'webgpu',
        durationMs: 7,
        reason: { kind: 'cost-model', measured: true },
        costsMs: { webgpu: 7, wasm: 9 },
      }),
    );
    t.recordOp(event({ backend: 'reference', durationMs: 0 })); // a backend of no known kind: in no kind's total
    const s = t.summary();
    expect(s.totalMs).toBe(10);
    expect(s.byKind.cpu).toEqual({
      ops: 3,
      failures: 0,
      totalMs: 3,
      meanMs: 1,
      opShare: 3 / 5,
      timeShare: 0.3,
      bytesMoved: 192,
    });
    expect(s.byKind.gpu).toMatchObject({ ops: 1, totalMs: 7, opShare: 1 / 5, timeShare: 0.7 });
    const table = t.debugTable();
    expect(table).toContain('cpu 3 ops 60.0%, 3.000ms 30.0%; gpu 1 ops 20.0%, 7.000ms 70.0%');
    const lines = table.split('\n');
    const webgpuRow = lines.findIndex((line) => line.startsWith('  webgpu'));
    expect(lines[webgpuRow + 1]).toMatch(
      /^ {4}matmul\s+1\s+0\s+7\.000ms\s+7\.000ms\s+20\.0%\s+70\.0%\s+64\s+cost model \(measured\): webgpu 7\.000ms, wasm 9\.000ms$/,
    );
  });

  it('answers per op: the events of one op, and one decision row per call with the reason in words', () => {
    const t = new Telemetry(() => 0);
    t.recordOp(event({ seq: 1, callId: 1 }));
    t.recordOp(event({ seq: 2, callId: 2, op: 'add', backend: 'webgpu', ok: false, error: 'lost', durationMs: 2 }));
    t.recordOp(
      event({
        seq: 3,
        callId: 2,
        op: 'add',
        attempt: 2,
        reason: { kind: 'error-fallback', failed: 'webgpu', error: 'lost' },
        durationMs: 1,
        label: 'step',
      }),
    );
    expect(t.eventsByOp('add').map((e) => e.seq)).toEqual([2, 3]);
    const rows = t.decisions();
    expect(rows).toEqual([
      {
        callId: 1,
        op: 'matmul',
        label: undefined,
        shapes: '4x4, 4x4',
        dtype: 'f32',
        backend: 'wasm',
        ok: true,
        reason: 'cost model (measured): wasm 0.100ms',
        reasonKind: 'cost-model',
        failed: [],
        ms: 0.5,
        startMs: 10,
      },
      {
        callId: 2,
        op: 'add',
        label: 'step',
        shapes: '4x4, 4x4',
        dtype: 'f32',
        backend: 'wasm',
        ok: true,
        reason: 'fallback after webgpu failed: lost',
        reasonKind: 'error-fallback',
        failed: ['webgpu'],
        ms: 3,
        startMs: 10,
      },
    ]);
    expect(t.decisions({ last: 1 })).toEqual([rows[1]]);
    expect(t.decisionsTable().split('\n')).toEqual([
      expect.stringMatching(/^op\s+shapes\s+backend\s+time\s+reason$/),
      expect.stringMatching(/^matmul\s+4x4, 4x4\s+wasm\s+0\.500ms\s+cost model \(measured\): wasm 0\.100ms$/),
      expect.stringMatching(/^step \(add\)\s+4x4, 4x4\s+wasm\s+3\.000ms\s+fallback after webgpu failed: lost$/),
    ]);
  });
});
