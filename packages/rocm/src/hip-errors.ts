// HIP / CUDA runtime failures as Tandem errors. The addon puts the runtime's error name in error.code
// (hipErrorOutOfMemory on AMD, cudaErrorMemoryAllocation on NVIDIA, ...); this maps it.
import { BackendError, DeviceLostError, errorMessage, OutOfMemoryError } from '@tandem/core';

/** The backend's name in every error and telemetry record. */
export const BACKEND_NAME = 'rocm';

const OUT_OF_MEMORY = new Set(['hipErrorOutOfMemory', 'hipErrorMemoryAllocation', 'cudaErrorMemoryAllocation']);

/** Errors after which the device context is unusable (sticky kernel faults, lost hardware). */
const DEVICE_LOST = new Set([
  'hipErrorIllegalAddress',
  'hipErrorLaunchFailure',
  'hipErrorLaunchTimeOut',
  'hipErrorECCNotCorrectable',
  'hipErrorContextIsDestroyed',
  'hipErrorAssert',
  'cudaErrorIllegalAddress',
  'cudaErrorLaunchFailure',
  'cudaErrorLaunchTimeout',
  'cudaErrorECCUncorrectable',
  'cudaErrorHardwareStackError',
  'cudaErrorIllegalInstruction',
  'cudaErrorMisalignedAddress',
  'cudaErrorInvalidAddressSpace',
  'cudaErrorInvalidPc',
  'cudaErrorAssert',
  'cudaErrorContextIsDestroyed',
  'cudaErrorDevicesUnavailable',
]);

/** A HIP runtime error other than out-of-memory or device loss; `hipError` is the runtime's name for it. */
export class HipError extends BackendError {
  override readonly name: string = 'HipError';
  /** The runtime's error name (hipError..., cudaError...) or the addon's TANDEM_* code. */
  readonly hipError: string;
  constructor(hipError: string, message: string, options?: { cause?: unknown }) {
    super('HIP_ERROR', BACKEND_NAME, message, options);
    this.hipError = hipError;
  }
}

/** The `code` the addon attached to an error, if any. */
export function hipErrorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** Whether an error means the device context is gone. */
export function isDeviceLoss(error: unknown): boolean {
  if (error instanceof DeviceLostError) return true;
  const name = hipErrorName(error);
  return name !== undefined && DEVICE_LOST.has(name);
}

/** Anything the addon threw or rejected with, as a BackendError (BackendErrors pass through). */
export function toBackendError(error: unknown, what: string, requestedBytes = 0): BackendError {
  if (error instanceof BackendError) return error;
  const name = hipErrorName(error) ?? 'unknown';
  const message = errorMessage(error);
  if (OUT_OF_MEMORY.has(name)) {
    const requested: unknown =
      typeof error === 'object' && error !== null ? Reflect.get(error, 'requestedBytes') : undefined;
    return new OutOfMemoryError(
      BACKEND_NAME,
      `${what} (${name})`,
      typeof requested === 'number' ? requested : requestedBytes,
    );
  }
  if (DEVICE_LOST.has(name)) return new DeviceLostError(BACKEND_NAME, `${message} (during ${what})`);
  return new HipError(name, `${what}: ${message}`, { cause: error });
}
