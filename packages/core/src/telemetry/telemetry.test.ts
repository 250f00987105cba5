import { describe, expect, it } from 'vitest';
import type { OpEvent } from './events.ts';
import { Ring } from './ring.ts';
import { Telemetry } from './telemetry.ts';

function event(overrides: Partial<OpEvent> = {}): OpEvent {
  return {
    seq: 1, callId: 1, attempt: 1, op: 'matmul', label: undefined, dtype: 'f32', shapes: '4x4, 4x4', backend: 'wasm',
    reason: { kind: 'cost-model', measured: true }, costsMs: { wasm: 0.1 }, ok: true, error: undefined,
    startMs: 10, durationMs: 0.5, kernelMs: 0.4, estimatedMs: 0.45, flops: 128, bytesMoved: 64, ...overrides,
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
    expect(s).toEqual({ totalOps: 0, totalFailures: 0, fallbacks: 0, byBackend: {}, byOp: {}, droppedEvents: 0 });
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
    const t = new Telemetry(() => 0, 4);
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
    const t = new Telemetry(() => 0, 100);
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
    t.recordOp(event({ backend: 'wasm', op: 'add', attempt: 2, reason: { kind: 'error-fallback', failed: 'webgpu', error: 'lost' } }));
    const s = t.summary();
    expect(s.totalOps).toBe(3);
    expect(s.totalFailures).toBe(1);
    expect(s.fallbacks).toBe(1);
    expect(s.byBackend['webgpu']).toMatchObject({ ops: 1, failures: 1, totalMs: 1.5, meanMs: 1.5 });
    expect(Object.values(s.byBackend).reduce((a, r) => a + r.share, 0)).toBeCloseTo(1, 12);
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
});
