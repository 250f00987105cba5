// WebGPU failures as Tandem's BackendError subclasses, so the engine falls back instead of crashing.
import { BackendError, DeviceLostError, OutOfMemoryError, errorMessage } from '@tandem/core';

/** The backend's name in every error and telemetry record. */
export const BACKEND_NAME = 'webgpu';

/** A GPU error caught by an error scope or reported as uncaptured, turned into a BackendError. */
export function fromGpuError(error: GPUError, what: string, requestedBytes: number): BackendError {
  if (isGpuErrorOfType(error, 'GPUOutOfMemoryError'))
    return new OutOfMemoryError(BACKEND_NAME, `${what} (${error.message})`, requestedBytes);
  if (isGpuErrorOfType(error, 'GPUValidationError'))
    return new BackendError('GPU_VALIDATION', BACKEND_NAME, `${what}: validation error: ${error.message}`);
  return new BackendError('GPU_INTERNAL', BACKEND_NAME, `${what}: internal error: ${error.message}`);
}

/** A device-lost error for `what`. */
export function deviceLost(what: string, reason: string): DeviceLostError {
  return new DeviceLostError(BACKEND_NAME, `${reason} (during ${what})`);
}

/** Anything thrown by a WebGPU call, as a BackendError (BackendErrors pass through). */
export function asBackendError(error: unknown, what: string): BackendError {
  if (error instanceof BackendError) return error;
  return new BackendError('GPU_ERROR', BACKEND_NAME, `${what}: ${errorMessage(error)}`, { cause: error });
}

/** Whether an error is of a WebGPU error class, via the global class when the host has it, else its name. */
function isGpuErrorOfType(error: GPUError, className: 'GPUOutOfMemoryError' | 'GPUValidationError'): boolean {
  const cls: unknown = Reflect.get(globalThis, className);
  if (typeof cls === 'function' && error instanceof cls) return true;
  return error.constructor.name === className;
}
