// What the circuit breaker answers a caller: admission of a closed circuit, how long an open one says to wait, the
// probe slot after a failed probe, success rates of (op, backend) pairs it never saw, a late failure of a call admitted
// before the circuit opened, and onTransition firing once per change of state.
import { describe, expect, it } from 'vitest';
import { type CircuitState, Tracker } from './tracker.ts';

/** A tracker on a manual clock: minCalls 5, cool-down 100 ms. */
function tracker() {
  let now = 0;
  const t = new Tracker(() => now, { minCalls: 5, coolDownMs: 100 });
  return { t, advance: (ms: number) => (now += ms) };
}

/** Five failures in a row: the circuit of (add, gpu) opens. */
function open(t: Tracker): void {
  for (let i = 0; i < 5; i++) t.record('add', 'gpu', false, 1, false);
}

describe('admission', () => {
  it('admits a call to a closed circuit with a history as a plain call, not a probe', () => {
    const { t } = tracker();
    t.record('add', 'gpu', true, 1, false);
    t.record('add', 'gpu', false, 1, false);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: false });
  });

  it('admits a call to a pair it never saw as a plain call', () => {
    const { t } = tracker();
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: false });
  });

  it('tells a refused caller how long the open circuit still waits, and its success rate', () => {
    const { t, advance } = tracker();
    open(t);
    advance(30);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: false, successRate: 0, retryInMs: 70 });
  });

  it('tells a caller refused while the probe is in flight to retry in a whole cool-down', () => {
    const { t, advance } = tracker();
    open(t);
    advance(150);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: true });
    expect(t.admit('add', 'gpu')).toEqual({ admitted: false, successRate: 0, retryInMs: 100 });
  });

  it('after a failed probe, admits the next probe once the cool-down has passed again', () => {
    const { t, advance } = tracker();
    open(t);
    advance(100);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: true });
    t.record('add', 'gpu', false, 1, true);
    expect(t.state('add', 'gpu')).toBe('open');
    expect(t.admit('add', 'gpu')).toMatchObject({ admitted: false, retryInMs: 100 });
    advance(100);
    expect(t.admit('add', 'gpu')).toEqual({ admitted: true, probe: true });
  });

  it("does not extend an open circuit's cool-down for a late failure of a call admitted before it opened", () => {
    const { t, advance } = tracker();
    open(t);
    advance(50);
    t.record('add', 'gpu', false, 1, false); // a call that was already running when the circuit opened
    advance(50);
    expect(t.state('add', 'gpu')).toBe('half-open');
  });
});

describe('success rate', () => {
  it('is 1 for an op never seen, and for a known op on a backend never seen', () => {
    const { t } = tracker();
    expect(t.successRate('add', 'gpu')).toBe(1);
    t.record('add', 'gpu', false, 1, false);
    expect(t.successRate('add', 'gpu')).toBe(0);
    expect(t.successRate('add', 'wasm')).toBe(1);
  });
});

describe('onTransition', () => {
  it('reports each change of state once, and nothing for an outcome that leaves the state as it is', () => {
    const { t, advance } = tracker();
    const seen: Array<[string, string, CircuitState, number]> = [];
    t.onTransition = (op, backend, to, rate) => seen.push([op, backend, to, rate]);
    open(t);
    advance(100);
    expect(t.admit('add', 'gpu')).toMatchObject({ probe: true });
    t.record('add', 'gpu', true, 1, true);
    t.record('add', 'gpu', true, 1, true); // the same probe's outcome reported twice: still closed
    expect(seen).toEqual([
      ['add', 'gpu', 'open', 0],
      ['add', 'gpu', 'half-open', 0],
      ['add', 'gpu', 'closed', 1],
    ]);
  });
});
