/** Milliseconds from a monotonic source; injectable so scheduler tests control time. */
export type Clock = () => number;

/** performance.now() where the host has it (browsers, Node, workers), Date.now() otherwise. */
export const monotonicClock: Clock = (() => {
  const perf: unknown = Reflect.get(globalThis, 'performance');
  if (typeof perf === 'object' && perf !== null) {
    const now: unknown = Reflect.get(perf, 'now');
    if (typeof now === 'function') return () => Number(now.call(perf));
  }
  return () => Date.now();
})();
