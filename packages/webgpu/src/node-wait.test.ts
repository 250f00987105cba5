// The throttled waiter without a GPU: it swaps setImmediate only while a wait is pending, sends native
// (dawn-style) polling callbacks to a timer after the spin window, and leaves JS callers alone.
import { describe, expect, it } from 'vitest';
import { createThrottledWaiter } from './node-wait.ts';

/** Resolves when setImmediate runs `callback`'s stand-in: a bound function prints as '[native code]', like dawn's. */
function immediate(native: boolean): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (): void => resolve(performance.now() - started);
    globalThis.setImmediate(native ? done.bind(null) : () => done());
  });
}

describe('createThrottledWaiter', () => {
  it('installs a wrapper only while waits are pending and restores the original after', async () => {
    const original = globalThis.setImmediate;
    const waiter = createThrottledWaiter();
    let during: unknown;
    await waiter.wait(async () => {
      during = globalThis.setImmediate;
    });
    expect(during).not.toBe(original);
    expect(globalThis.setImmediate).toBe(original);
  });

  it('keeps the wrapper across overlapping waits', async () => {
    const original = globalThis.setImmediate;
    const waiter = createThrottledWaiter();
    let release: () => void = () => {};
    const first = waiter.wait(() => new Promise<void>((resolve) => (release = resolve)));
    await waiter.wait(async () => {});
    expect(globalThis.setImmediate).not.toBe(original);
    release();
    await first;
    expect(globalThis.setImmediate).toBe(original);
  });

  it('delays native polling callbacks after the spin window; JS callbacks pass through', async () => {
    let clock = 0;
    const waiter = createThrottledWaiter({ spinMs: 5, pollIntervalMs: 20, maxPollIntervalMs: 20, now: () => clock });
    await waiter.wait(async () => {
      clock = 1;
      await immediate(true);
      clock = 100;
      expect(await immediate(true)).toBeGreaterThanOrEqual(15);
      await immediate(false);
    });
  });
});
