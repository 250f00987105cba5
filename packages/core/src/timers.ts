// setTimeout/clearTimeout exist in every JS host Tandem runs in (browsers, workers, Node), but not in the ES
// library core is type-checked against: fetch them once, checked, instead of pulling in DOM or Node types.
const setTimeoutFn: unknown = Reflect.get(globalThis, 'setTimeout');
const clearTimeoutFn: unknown = Reflect.get(globalThis, 'clearTimeout');

/** Schedules `fn` after `ms`; returns a handle for cancelTimer. */
export function startTimer(fn: () => void, ms: number): unknown {
  if (typeof setTimeoutFn !== 'function') throw new Error('this JavaScript host has no setTimeout');
  const handle: unknown = Reflect.apply(setTimeoutFn, globalThis, [fn, ms]);
  return handle;
}

/** startTimer for work that must not keep a Node process alive by itself (unref'd where the host has unref). */
export function startBackgroundTimer(fn: () => void, ms: number): unknown {
  const handle = startTimer(fn, ms);
  const unref: unknown = typeof handle === 'object' && handle !== null ? Reflect.get(handle, 'unref') : undefined;
  if (typeof unref === 'function') Reflect.apply(unref, handle, []);
  return handle;
}

/** Cancels a timer from startTimer. */
export function cancelTimer(handle: unknown): void {
  if (typeof clearTimeoutFn === 'function') Reflect.apply(clearTimeoutFn, globalThis, [handle]);
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    startTimer(resolve, ms);
  });
}
