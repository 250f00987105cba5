// Errors across the process boundary: the child sends its error as data (WireError), the parent rebuilds the
// same BackendError subclass with the same message, so the engine's fallback and telemetry read as in-process.
import {
  BackendError,
  DeadlineExceededError,
  DeviceLostError,
  errorMessage,
  InvalidArgumentError,
  isErrorCode,
  OutOfMemoryError,
  TandemError,
} from '@tandem/core';
import { BACKEND_NAME } from '../gpu-errors.ts';
import type { WireError } from './protocol.ts';

/** Only these InvalidArgumentError values cross the boundary as they are; anything else as its String(). */
function wireValue(value: unknown): WireError['value'] {
  if (value === undefined || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value;
  return String(value);
}

/** Anything the child's backend threw, as data. */
export function toWireError(error: unknown): WireError {
  const base = {
    name: error instanceof Error ? error.name : 'Error',
    code: error instanceof TandemError ? error.code : undefined,
    message: errorMessage(error),
    requestedBytes: undefined,
    limitBytes: undefined,
    argument: undefined,
    value: undefined,
    limit: undefined,
  };
  if (error instanceof OutOfMemoryError)
    return { ...base, requestedBytes: error.requestedBytes, limitBytes: error.limitBytes };
  if (error instanceof InvalidArgumentError)
    return { ...base, argument: error.argument, value: wireValue(error.value), limit: error.limit };
  return base;
}

/** The message without the `[webgpu] ` prefix BackendError adds (it is added again on rebuild). */
function unprefixed(message: string): string {
  const prefix = `[${BACKEND_NAME}] `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Text after `lead` in the unprefixed message, or the whole unprefixed message. */
function after(message: string, lead: string): string {
  const text = unprefixed(message);
  return text.startsWith(lead) ? text.slice(lead.length) : text;
}

/** The error a WireError describes, as the BackendError subclass the child threw (InvalidArgumentError stays one). */
export function fromWireError(wire: WireError): Error {
  switch (wire.name) {
    case 'DeviceLostError':
      return new DeviceLostError(BACKEND_NAME, after(wire.message, 'device lost: '));
    case 'OutOfMemoryError': {
      const what =
        /^out of memory allocating (.*): \d+ bytes requested/.exec(unprefixed(wire.message))?.[1] ??
        unprefixed(wire.message);
      return new OutOfMemoryError(BACKEND_NAME, what, wire.requestedBytes ?? 0, wire.limitBytes);
    }
    case 'DeadlineExceededError': {
      const match = /^(.*) did not finish within (\d+) ms$/.exec(unprefixed(wire.message));
      if (match !== null) return new DeadlineExceededError(BACKEND_NAME, match[1] ?? '', Number(match[2]));
      break;
    }
    case 'InvalidArgumentError':
      if (wire.argument !== undefined && wire.limit !== undefined)
        return new InvalidArgumentError(wire.argument, wire.value, wire.limit);
      break;
  }
  return new BackendError(
    isErrorCode(wire.code) ? wire.code : 'GPU_PROCESS_ERROR',
    BACKEND_NAME,
    unprefixed(wire.message),
  );
}
