import { describe, expect, it } from 'vitest';
import { Tracker } from './tracker.ts';

function tracker(config = {}) {
  let now = 0;
  const t = new Tracker(() => now, { minCalls: 5, coolDownMs: 100, ...config });
  return { t, advance: (ms: number) => (now += ms) };
}

describe('Tracker', () => {
  it('stays closed while the success rate is at or above the threshold', () => {
    const { t } = tracker({ window: 20 });
    for (let i = 0; i < 19; i++) t.record('matmul', 'gpu', true, 1, false);
    t.record('matmul', 'gpu', false, 1, false); // 19/20 = 0.95: not below
    expect(t.state('matmul', 'gpu')).toBe('closed');
    t.record('matmul', 'gpu', false, 1, false); // 18/20 = 0.90
    expect(t.state('matmul', 'gpu')).toBe('open');
  });

  it('needs minCalls outcomes before opening', () => {
    const { t } = tracker();
    for (let i = 0; i < 4; i++) t.record('add', 'gpu', false, 1, false);
    expect(t.state('add', 'gpu')).toBe('closed');
    t.record('add', 'gpu', false, 1, false);
    expect(t.state('add', 'gpu')).toBe('open');
  });

  it('admits exactly one probe after the cool-down, even under concurrent callers', () => {
    const { t, advance } = tracker();
    for (let i = 0; i < 5; i++) t.record('add', 'gpu', false, 1, false);
    expect(t.admit('add', 'gpu')).toMatchObject({ admitted: false });
    advance(100);
    const admissions = Array.from({ length: 10 }, () => t.admit('add', 'gpu'));
    expect(admissions.filter((a) => a.admitted)).toEqual([{ admitted: true, probe: true }]);
    t.record('add', 'gpu', true, 1, true);
    expect(t.state('add', 'gpu')).toBe('closed');
    expect(t.successRate('add', 'gpu')).toBe(1); // window cleared on close
  });

  it('keeps circuits per (op, backend)', () => {
    const { t } = tracker();
    for (let i = 0; i < 5; i++) t.record('add', 'gpu', false, 1, false);
    expect(t.state('matmul', 'gpu')).toBe('closed');
    expect(t.state('add', 'wasm')).toBe('closed');
  });

  it('reports counts and latency percentiles; no NaN when empty', () => {
    const { t } = tracker();
    for (let i = 1; i <= 100; i++) t.record('add', 'wasm', true, i, false);
    t.record('add', 'wasm', false, 0, false);
    const [s] = t.stats();
    expect(s).toMatchObject({ op: 'add', backend: 'wasm', successes: 100, failures: 1, p50Ms: 51, p99Ms: 100 }); // core's percentile
    const { t: fresh } = tracker();
    fresh.record('add', 'wasm', false, 0, false);
    expect(fresh.stats()[0]).toMatchObject({ p50Ms: 0, p99Ms: 0 });
  });

  it('keeps the latencies of the last latencyWindow successes, and takes percentiles in order of size', () => {
    const { t } = tracker({ latencyWindow: 3 });
    for (const ms of [1000, 5, 1, 3]) t.record('add', 'wasm', true, ms, false); // 1000 leaves the window
    expect(t.stats()[0]).toMatchObject({ successes: 4, p50Ms: 3, p99Ms: 5 });
  });

  it('rates success over the last `window` outcomes only: old failures age out', () => {
    const { t } = tracker({ window: 4, successRateThreshold: 0.1 });
    t.record('add', 'gpu', false, 1, false);
    t.record('add', 'gpu', false, 1, false);
    for (let i = 0; i < 3; i++) t.record('add', 'gpu', true, 1, false);
    expect(t.successRate('add', 'gpu')).toBe(0.75); // F S S S
    t.record('add', 'gpu', true, 1, false);
    expect(t.successRate('add', 'gpu')).toBe(1);
    expect(t.stats()[0]).toMatchObject({ successes: 4, failures: 2, successRate: 1 });
  });

  it('releaseProbe() frees the probe slot of a half-open circuit, so the next call probes', () => {
    const { t, advance } = tracker();
    for (let i = 0; i < 5; i++) t.record('add', 'gpu', false, 1, false);
    advance(100);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: true });
    expect(t.wouldAdmit('add', 'gpu')).toBe(false); // the probe is in flight
    t.releaseProbe('add', 'gpu'); // it ended in the caller's error: no outcome
    expect(t.state('add', 'gpu')).toBe('half-open');
    expect(t.wouldAdmit('add', 'gpu')).toBe(true);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: true });
    expect(() => t.releaseProbe('mul', 'gpu')).not.toThrow(); // nothing known of it: nothing to free
    expect(t.state('mul', 'gpu')).toBe('closed');
  });
});
