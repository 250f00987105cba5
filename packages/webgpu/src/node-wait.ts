// dawn.node resolves WebGPU promises by calling wgpuInstanceProcessEvents from a callback it re-queues with
// the global `setImmediate` for as long as any promise is pending. The event loop then never sleeps: ~70% of
// a core goes to polling while the GPU works (and, with a software GPU, slows the GPU down too).
// This waiter swaps the global setImmediate, only while a GPU wait is pending, for one that hands dawn's
// native polling callback to a timer (other callers pass through untouched). The first `spinMs` of a wait
// still poll eagerly so short waits stay fast; after that the interval grows with the wait (a twentieth of
// the time waited so far, between pollIntervalMs and maxPollIntervalMs), so added latency stays near 5%.
// JS-thread CPU while awaiting a long job drops from most of a core to a few percent (`npm run bench -- webgpu`,
// apps/bench/src/webgpu/wait-cpu.ts; figures in packages/webgpu/README.md).
import type { GpuWaiter } from './waiter.ts';

/** Tuning of the throttled waiter. */
export interface ThrottledWaiterOptions {
  /** Shortest delay between dawn's event polls once a wait has lasted spinMs, ms (default 1). */
  readonly pollIntervalMs?: number;
  /** Longest delay between polls, ms (default 8). */
  readonly maxPollIntervalMs?: number;
  /** How long each wait polls at full speed before throttling, ms (default 0.5). */
  readonly spinMs?: number;
  /** Time source, ms. */
  readonly now?: () => number;
}

const nativeSource = /\{\s*\[native code\]\s*\}\s*$/;

function isNativeFunction(value: unknown): boolean {
  return typeof value === 'function' && nativeSource.test(Function.prototype.toString.call(value));
}

/** A waiter for dawn.node that keeps its event polling off the CPU while GPU work is pending. */
export function createThrottledWaiter(options: ThrottledWaiterOptions = {}): GpuWaiter {
  const pollIntervalMs = options.pollIntervalMs ?? 1;
  const maxPollIntervalMs = options.maxPollIntervalMs ?? 8;
  const spinMs = options.spinMs ?? 0.5;
  const now = options.now ?? (() => performance.now());
  let pending = 0;
  let waitStart = 0;
  // biome-ignore lint/complexity/noBannedTypes: setImmediate as found on globalThis, whatever its signature
  let original: Function | undefined;
  // biome-ignore lint/complexity/noBannedTypes: as above
  let installed: Function | undefined;

  const throttled = (...args: unknown[]): unknown => {
    const [callback] = args;
    if (original === undefined) return undefined;
    const waited = now() - waitStart;
    if (args.length === 1 && typeof callback === 'function' && isNativeFunction(callback) && waited >= spinMs) {
      const interval = Math.min(maxPollIntervalMs, Math.max(pollIntervalMs, waited / 20));
      return setTimeout(() => Reflect.apply(callback, undefined, []), interval);
    }
    return Reflect.apply(original, globalThis, args);
  };

  const install = (): void => {
    const current: unknown = Reflect.get(globalThis, 'setImmediate');
    if (typeof current !== 'function') return;
    original = current;
    installed = throttled;
    Reflect.set(globalThis, 'setImmediate', throttled);
  };
  const uninstall = (): void => {
    if (installed !== undefined && Reflect.get(globalThis, 'setImmediate') === installed) {
      Reflect.set(globalThis, 'setImmediate', original);
    }
    installed = undefined;
  };

  return {
    async wait(start) {
      if (pending++ === 0) install();
      waitStart = now();
      try {
        return await start();
      } finally {
        if (--pending === 0) uninstall();
      }
    },
  };
}
