import type { ErrorCode } from './error-codes.ts';

/**
 * Base class of every error Tandem throws on purpose; `code` is stable for programs to branch on (a closed union:
 * error-codes.ts). Each class names itself with a string literal, not `new.target.name`, so that names survive a
 * minifier renaming classes.
 */
export class TandemError extends Error {
  override readonly name: string = 'TandemError';
  /** Stable machine-readable code, one per failure. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Bad input: names the argument, the value received and the limit or rule it broke. */
export class InvalidArgumentError extends TandemError {
  override readonly name: string = 'InvalidArgumentError';
  /** Which argument was wrong, e.g. `matmul.b.shape[0]`. */
  readonly argument: string;
  /** The offending value, printable. */
  readonly value: unknown;
  /** The rule it broke, e.g. `must equal a.shape[1] (64)`. */
  readonly limit: string;
  constructor(argument: string, value: unknown, limit: string) {
    super('INVALID_ARGUMENT', `${argument} = ${formatValue(value)}: ${limit}`);
    this.argument = argument;
    this.value = value;
    this.limit = limit;
  }
}

/** A backend could not run an op: thrown by backends, caught by the engine, which falls back. */
export class BackendError extends TandemError {
  override readonly name: string = 'BackendError';
  /** Backend that failed. */
  readonly backend: string;
  constructor(code: ErrorCode, backend: string, message: string, options?: { cause?: unknown }) {
    super(code, `[${backend}] ${message}`, options);
    this.backend = backend;
  }
}

/** A backend ran out of memory (device or wasm linear memory); names what was being allocated. */
export class OutOfMemoryError extends BackendError {
  override readonly name: string = 'OutOfMemoryError';
  /** Bytes requested. */
  readonly requestedBytes: number;
  /** Bytes the backend could give, when known. */
  readonly limitBytes: number | undefined;
  constructor(backend: string, what: string, requestedBytes: number, limitBytes?: number) {
    super(
      'OUT_OF_MEMORY',
      backend,
      `out of memory allocating ${what}: ${requestedBytes} bytes requested` +
        (limitBytes === undefined ? '' : `, limit ${limitBytes} bytes`),
    );
    this.requestedBytes = requestedBytes;
    this.limitBytes = limitBytes;
  }
}

/** An op ran past its deadline; the engine abandons it and re-runs the op elsewhere. */
export class DeadlineExceededError extends BackendError {
  override readonly name: string = 'DeadlineExceededError';
  constructor(backend: string, op: string, deadlineMs: number) {
    super('DEADLINE_EXCEEDED', backend, `${op} did not finish within ${deadlineMs} ms`);
  }
}

/** The device behind a backend is gone (WebGPU device lost, GPU reset). */
export class DeviceLostError extends BackendError {
  override readonly name: string = 'DeviceLostError';
  constructor(backend: string, reason: string) {
    super('DEVICE_LOST', backend, `device lost: ${reason}`);
  }
}

/** One backend's failure inside an AllBackendsFailedError. */
export interface BackendFailure {
  /** Backend name. */
  readonly backend: string;
  /** What it threw, or why it was skipped. */
  readonly error: string;
}

/** Every capable backend failed (or none was capable); lists each one's failure. */
export class AllBackendsFailedError extends TandemError {
  override readonly name: string = 'AllBackendsFailedError';
  /** Failures in the order the backends were tried. */
  readonly failures: readonly BackendFailure[];
  constructor(op: string, failures: readonly BackendFailure[]) {
    const detail =
      failures.length === 0 ? 'no backend is registered' : failures.map((f) => `${f.backend}: ${f.error}`).join('; ');
    super('ALL_BACKENDS_FAILED', `${op} failed on every capable backend (${detail})`);
    this.failures = failures;
  }
}

/**
 * An op needs more memory than any backend able to run it has free: refused before any backend is asked. Names the
 * op, its shapes, the bytes it needs (outputs, scratch and inputs not yet there) and the most any backend has.
 */
export class ResourceExhaustedError extends TandemError {
  override readonly name: string = 'ResourceExhaustedError';
  /** Op id. */
  readonly op: string;
  /** Fewest bytes the op needs on any one backend. */
  readonly requiredBytes: number;
  /** Most bytes any backend able to run the op has free. */
  readonly availableBytes: number;
  /** Every backend's reason for not taking the op. */
  readonly failures: readonly BackendFailure[];
  constructor(
    op: string,
    shapes: string,
    requiredBytes: number,
    availableBytes: number,
    failures: readonly BackendFailure[],
  ) {
    const detail = failures.map((f) => `${f.backend}: ${f.error}`).join('; ');
    super(
      'RESOURCE_EXHAUSTED',
      `${op} (${shapes}) needs ${requiredBytes} bytes on one backend; the most free on any backend that can run it is ${availableBytes} bytes (${detail})`,
    );
    this.op = op;
    this.requiredBytes = requiredBytes;
    this.availableBytes = availableBytes;
    this.failures = failures;
  }
}

/** The caller aborted the call (its AbortSignal fired); no backend is blamed for it. */
export class AbortedError extends TandemError {
  override readonly name: string = 'AbortedError';
  constructor(op: string, reason: unknown) {
    super('ABORTED', `${op} was aborted${reason === undefined ? '' : `: ${errorMessage(reason)}`}`, { cause: reason });
  }
}

/** The engine or a tensor was used after dispose(). */
export class DisposedError extends TandemError {
  override readonly name: string = 'DisposedError';
  constructor(what: string) {
    super('DISPOSED', `${what} was used after dispose()`);
  }
}

/**
 * The caller's own mistake inside `error`, if it is one: an AbortedError, a DisposedError or an InvalidArgumentError
 * (also when a backend wrapped it as its cause). These never count against a backend's health and are not retried.
 */
export function callerError(error: unknown): TandemError | undefined {
  if (error instanceof AbortedError || error instanceof DisposedError || error instanceof InvalidArgumentError)
    return error;
  if (error instanceof BackendError && error.cause instanceof InvalidArgumentError) return error.cause;
  return undefined;
}

function formatValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
