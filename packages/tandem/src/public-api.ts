// What `tandem` exports beyond createEngine, in both hosts: the engine and tensor types, call options, strategies,
// errors, telemetry types and the data helpers a user needs (quantizing weights, f16). Internals (the scheduler's
// parts, rings, checksums) stay in @tandem/core for backend authors.
export {
  Engine,
  type BackendStatus,
  type EngineOptions,
  type Explanation,
  type TensorData,
  type TensorDataOf,
} from '@tandem/core';
export { Tensor, type HostArrayOf } from '@tandem/core';
export { DTYPES, type DType, type HostArray } from '@tandem/core';
export type { InputDType, Op, OpKind, RopeMode, TensorSpec } from '@tandem/core';
export { DISTRIBUTIONS, type Distribution, type RandomDType, type RandomOptions } from '@tandem/core';
export type { OpWork } from '@tandem/core';
export {
  type CopyProfile,
  type CostSeriesSnapshot,
  type EngineProfile,
  PROFILE_FORMAT,
  type ProfileData,
  ProfileError,
  type ProfileImport,
  type ProfileStore,
} from '@tandem/core';
export type { AbortSignalLike, CallOptions } from '@tandem/core';
export type { AttentionOptions, RmsNormOptions, RopeOptions, SoftmaxOptions, SpreadOptions } from '@tandem/core';
export {
  describeReason,
  type BackendSelection,
  type SchedulePlan,
  type SelectionReason,
  type SkippedBackend,
  type Strategy,
} from '@tandem/core';
export {
  AbortedError,
  AllBackendsFailedError,
  BackendError,
  DeadlineExceededError,
  DeviceLostError,
  DisposedError,
  InvalidArgumentError,
  OutOfMemoryError,
  ResourceExhaustedError,
  TandemError,
  type BackendFailure,
} from '@tandem/core';
export type {
  ChromeTrace,
  NoticeEvent,
  OpEvent,
  SummaryRow,
  Telemetry,
  TelemetrySummary,
  TraceEvent,
} from '@tandem/core';
export type { CopyPoint, TrackerStats } from '@tandem/core';
export {
  dequantizeQ4_0,
  dequantizeQ8_0,
  quantizeQ4_0,
  quantizeQ8_0,
  decodeF16,
  encodeF16,
  type QuantizedDType,
} from '@tandem/core';
export type { BackendKind, CapableBackend } from '@tandem/core';
export type { CreateEngineOptions } from './create-engine.ts';
export { FORCE_CPU_REASON } from './create-engine.ts';
export { REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory, type FactoryOptions } from './default-backends.ts';
export type { WasmBackendOptions } from '@tandem/wasm';
