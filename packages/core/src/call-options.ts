// The options every engine call takes (run, explain and each op method), checked before any work: an unknown key is
// an InvalidArgumentError, never silently ignored.
import { AbortedError, InvalidArgumentError } from './errors.ts';
import type { Strategy } from './scheduler/selection.ts';

/** The part of AbortSignal the engine uses (core is typed without DOM or Node globals; a real AbortSignal fits). */
export interface AbortSignalLike {
  /** Whether abort() was called. */
  readonly aborted: boolean;
  /** What abort() was given. */
  readonly reason?: unknown;
  /** Registers the abort listener. */
  addEventListener(type: 'abort', listener: () => void): void;
  /** Removes it again. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Options of one call. */
export interface CallOptions {
  /** How to pick the backend for this call (default: the engine's strategy). */
  readonly strategy?: Strategy | undefined;
  /** Names the call in telemetry (events, Chrome trace). */
  readonly label?: string | undefined;
  /** Cancels the call: before it starts, or while it waits for a backend (the result is dropped). */
  readonly signal?: AbortSignalLike | undefined;
}

/** The keys of CallOptions, for checking option objects. */
export const CALL_OPTION_KEYS: readonly string[] = ['strategy', 'label', 'signal'];

/**
 * Checks that `options` is undefined or a plain object whose keys are all in `allowed` (the call options plus the
 * op's own; the op's own alone with `callOptions: false`), naming the first unknown key and the keys that are accepted.
 */
export function checkOptionKeys(
  where: string,
  options: unknown,
  allowed: readonly string[],
  { callOptions = true } = {},
): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(where, options, 'must be an options object');
  }
  const accepted = callOptions ? [...allowed, ...CALL_OPTION_KEYS] : allowed;
  for (const key of Object.keys(options)) {
    if (!accepted.includes(key)) {
      throw new InvalidArgumentError(
        `${where}.${key}`,
        Reflect.get(options, key),
        `is not an option here (accepted: ${accepted.join(', ')})`,
      );
    }
  }
}

/** Checks the call options' own fields: a known strategy, a string label, an AbortSignal. */
export function checkCallOptions(
  where: string,
  options: CallOptions | undefined,
  backendNames: ReadonlySet<string>,
): void {
  if (options === undefined) return;
  checkOptionKeys(where, options, []);
  const { strategy, label, signal } = options;
  if (strategy !== undefined) checkStrategy(`${where}.strategy`, strategy, backendNames);
  if (label !== undefined && typeof label !== 'string')
    throw new InvalidArgumentError(`${where}.label`, label, 'must be a string');
  if (signal !== undefined && !isAbortSignal(signal))
    throw new InvalidArgumentError(`${where}.signal`, signal, 'must be an AbortSignal');
}

/** Checks a strategy: one of the named ones, or `{ only }` naming a registered backend. */
export function checkStrategy(
  where: string,
  strategy: unknown,
  backendNames: ReadonlySet<string>,
): asserts strategy is Strategy {
  if (strategy === 'auto' || strategy === 'gpu-preferred' || strategy === 'cpu-preferred') return;
  if (typeof strategy === 'object' && strategy !== null && !Array.isArray(strategy)) {
    const only: unknown = Reflect.get(strategy, 'only');
    if (Object.keys(strategy).length === 1 && typeof only === 'string') {
      if (backendNames.has(only)) return;
      throw new InvalidArgumentError(
        `${where}.only`,
        only,
        `is not a backend of this engine (backends: ${[...backendNames].join(', ')})`,
      );
    }
  }
  throw new InvalidArgumentError(
    where,
    typeof strategy === 'object' ? JSON.stringify(strategy) : strategy,
    "must be 'auto', 'gpu-preferred', 'cpu-preferred' or { only: <backend name> }",
  );
}

function isAbortSignal(value: unknown): value is AbortSignalLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'aborted') === 'boolean' &&
    typeof Reflect.get(value, 'addEventListener') === 'function'
  );
}

/** Throws AbortedError when the signal has fired. */
export function throwIfAborted(signal: AbortSignalLike | undefined, op: string): void {
  if (signal?.aborted === true) throw new AbortedError(op, signal.reason);
}

/**
 * Resolves or rejects with `work`, or rejects with AbortedError as soon as the signal fires (then `onLate` gets the
 * result that arrives after all, so its buffers can be freed).
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignalLike | undefined,
  op: string,
  onLate: (late: T) => void,
): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      reject(new AbortedError(op, signal.reason));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort);
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (aborted) onLate(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!aborted) reject(error);
      },
    );
  });
}
