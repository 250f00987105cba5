// Runtime checks of what arrives over the IPC channel (it is `unknown` until checked): each guard validates
// the shape it claims, so neither side needs a cast.
import {
  DTYPES,
  type BackendHealth,
  type DType,
  type InitResult,
  type PerformanceProfile,
  type TensorSpec,
} from '@tandem/core';
import type { DeviceLimits } from '../device-context.ts';
import type {
  GpuReply,
  GpuResults,
  RemoteBuffer,
  RemoteDescription,
  RemoteTensor,
  RepliedRequestType,
  WireError,
} from './protocol.ts';

/** A plain object whose fields can be read by name. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** A finite number >= 0. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A non-negative integer (buffer ids, sizes, shape entries). */
export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** undefined, or a value passing `check`. */
function optional<T>(value: unknown, check: (v: unknown) => v is T): value is T | undefined {
  return value === undefined || check(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}

/** One of Tandem's dtypes. */
export function isDType(value: unknown): value is DType {
  return DTYPES.some((d) => d === value);
}

/** { dtype, shape } with a known dtype and non-negative integer dimensions. */
export function isTensorSpec(value: unknown): value is TensorSpec {
  return isRecord(value) && isDType(value['dtype']) && Array.isArray(value['shape']) && value['shape'].every(isIndex);
}

/** A tensor spec with a child buffer id. */
export function isRemoteTensor(value: unknown): value is RemoteTensor {
  return isTensorSpec(value) && isRecord(value) && isIndex(value['buffer']);
}

/** A BackendHealth value. */
export function isHealth(value: unknown): value is BackendHealth {
  if (!isRecord(value)) return false;
  const state = value['state'];
  if (state === 'healthy') return true;
  return (state === 'degraded' || state === 'unhealthy' || state === 'unavailable') && isString(value['reason']);
}

function isInitResult(value: unknown): value is InitResult {
  return isRecord(value) && (value['ok'] === true || (value['ok'] === false && isString(value['reason'])));
}

function isProfile(value: unknown): value is PerformanceProfile {
  return (
    isRecord(value) &&
    ['flopsPerMs', 'bytesPerMs', 'launchMs', 'transferBytesPerMs'].every((k) => typeof value[k] === 'number')
  );
}

const LIMIT_NAMES: ReadonlyArray<keyof DeviceLimits> = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupsPerDimension',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxStorageBuffersPerShaderStage',
];

function isLimits(value: unknown): value is DeviceLimits {
  return isRecord(value) && LIMIT_NAMES.every((k) => isCount(value[k]));
}

function isRemoteDescription(value: unknown): value is RemoteDescription {
  if (!isRecord(value) || !optional(value['limits'], isLimits)) return false;
  const d = value['description'];
  return (
    isRecord(d) &&
    isString(d['name']) &&
    isStringArray(d['features']) &&
    optional(d['memoryBytes'], isCount) &&
    optional(d['availableMemoryBytes'], isCount) &&
    optional(d['performance'], isProfile) &&
    isCount(d['maxStorageBufferBindingSize']) &&
    isCount(d['maxBufferSize']) &&
    typeof d['software'] === 'boolean'
  );
}

function isRemoteBuffer(value: unknown): value is RemoteBuffer {
  return isRecord(value) && isIndex(value['id']) && isIndex(value['byteLength']);
}

function isRunResult(value: unknown): value is GpuResults['run'] {
  return (
    isRecord(value) &&
    typeof value['kernelMs'] === 'number' &&
    Array.isArray(value['outputs']) &&
    value['outputs'].every(isRemoteBuffer)
  );
}

function isNull(value: unknown): value is null {
  return value === null;
}

/** Bytes (a Buffer or Uint8Array after deserialization). */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** The guard of each replied request's result. */
export const RESULT_GUARDS: { readonly [K in RepliedRequestType]: (value: unknown) => value is GpuResults[K] } = {
  init: isInitResult,
  describe: isRemoteDescription,
  upload: isRemoteBuffer,
  download: isBytes,
  run: isRunResult,
  health: isNull,
  dispose: isNull,
};

function isWireValue(value: unknown): value is WireError['value'] {
  return (
    value === undefined ||
    ['string', 'number', 'boolean'].includes(typeof value) ||
    (Array.isArray(value) && value.every((v) => typeof v === 'number'))
  );
}

function isWireError(value: unknown): value is WireError {
  return (
    isRecord(value) &&
    isString(value['name']) &&
    isString(value['message']) &&
    optional(value['code'], isString) &&
    optional(value['requestedBytes'], isCount) &&
    optional(value['limitBytes'], isCount) &&
    optional(value['argument'], isString) &&
    optional(value['limit'], isString) &&
    isWireValue(value['value'])
  );
}

/** A reply from the child. */
export function isGpuReply(value: unknown): value is GpuReply {
  if (!isRecord(value) || !isIndex(value['id']) || !isHealth(value['health'])) return false;
  return value['ok'] === true ? 'result' in value : value['ok'] === false && isWireError(value['error']);
}
