// @tandem/core's public surface: what backends, the workloads and applications use. Helpers that only core uses
// (the event ring, trace and exposition internals, op-definition builders, scheduler bookkeeping) stay unexported.
export {
  isDType,
  isQuantized,
  byteLengthOf,
  type DType,
  DTYPES,
  QUANT_BLOCK,
  Q8_0_BLOCK_BYTES,
  Q4_0_BLOCK_BYTES,
  type HostArray,
} from './dtype.ts';
export { halfToFloat, floatToHalf } from './half.ts';
export {
  errorMessage,
  TandemError,
  InvalidArgumentError,
  BackendError,
  OutOfMemoryError,
  DeadlineExceededError,
  DeviceLostError,
  type BackendFailure,
  AllBackendsFailedError,
  ResourceExhaustedError,
  AbortedError,
  DisposedError,
  callerError,
} from './errors.ts';
export { readSetting, type Setting, TANDEM_SETTINGS, type SettingName } from './settings.ts';
export { isErrorCode, ERROR_CODES, type ErrorCode } from './error-codes.ts';
export {
  isKnownOp,
  opDefinition,
  mapOpTensors,
  opInputs,
  primaryInput,
  type OpKind,
  type InputsOf,
  type ParamsOf,
  type InputDType,
  type OpOf,
  type Op,
  type BinaryOp,
  type UnaryOpKind,
  OP_KINDS,
  UNARY_OP_KINDS,
} from './ops.ts';
export { numel, assertValidShape, sameShape, describeValue, MAX_ELEMENTS, MAX_RANK } from './shape.ts';
export { opMemory, type OpMemory } from './limits.ts';
export { inferOutputs, opWork } from './op-info.ts';
export { isOpOver, isTensorSpec } from './op-guard.ts';
export type {
  BackendKind,
  DeviceBuffer,
  BoundTensor,
  Capability,
  SupportVerdict,
  InitResult,
  PerformanceProfile,
  DeviceDescription,
  BackendHealth,
  RunResult,
  SequenceRunResult,
  BackendSequence,
  CapableBackend,
} from './backend.ts';
export { checkCapabilities, backendSupports } from './capability.ts';
export {
  kernelName,
  firstInputDtypes,
  capabilitiesOf,
  unaryKernelTable,
  type KernelReach,
  type KernelReachTable,
} from './kernel-table.ts';
export type { OpWork, InputSpec, ParamKind, OpDefinition } from './op-definition.ts';
export { type Clock, monotonicClock } from './clock.ts';
export { startTimer, cancelTimer, sleep } from './timers.ts';
export { type HostArrayOf, type TensorHost, Storage, Tensor } from './tensor.ts';
export type { TensorData, TensorDataOf } from './tensor-data.ts';
export { type ResidencyOptions, Residency } from './residency.ts';
export { type CopyPoint, CopyTimes } from './copy-times.ts';
export { EngineProfile, type ProfileImport } from './profile/engine-profile.ts';
export type { WarmUpExample } from './engine-warmup.ts';
export {
  type CopyProfile,
  PROFILE_FORMAT,
  ProfileError,
  type ProfileData,
  type ProfileSection,
  type ProfileStore,
  parseProfile,
  profileKey,
} from './profile/profile-data.ts';
export { ENGINE_VERSION } from './version.ts';
export { checkOptionKeys, type AbortSignalLike, type CallOptions, CALL_OPTION_KEYS } from './call-options.ts';
export type {
  SoftmaxOptions,
  RmsNormOptions,
  RopeOptions,
  AttentionOptions,
  SpreadOptions,
} from './op-options.ts';
export { DISTRIBUTIONS, type Distribution, type RandomDType, type RandomOptions } from './creators.ts';
export { Engine } from './engine.ts';
export { FORCE_CPU_UNSTARTED, type BackendStatus } from './engine-backends.ts';
export { rooflineMs, DEFAULT_PROFILES } from './scheduler/roofline.ts';
export {
  type CostModelConfig,
  DEFAULT_COST_MODEL_CONFIG,
  type CostEstimate,
  CostModel,
  type CostSeriesSnapshot,
} from './scheduler/cost-model.ts';
export { type DecisionCacheConfig, DEFAULT_DECISION_CACHE_CONFIG, DecisionCache } from './scheduler/decision-cache.ts';
export {
  type TrackerConfig,
  DEFAULT_TRACKER_CONFIG,
  type CircuitState,
  type TrackerStats,
  Tracker,
} from './scheduler/tracker.ts';
export {
  describeReason,
  formatMs,
  type Strategy,
  type SelectionReason,
  type SkippedBackend,
  type BackendSelection,
  type SchedulePlan,
  type SchedulerConfig,
  type MinBatchByOp,
  DEFAULT_SCHEDULER_CONFIG,
  type Candidate,
} from './scheduler/selection.ts';
export { type PlanResult, Scheduler } from './scheduler/scheduler.ts';
export type { OpEvent, NoticeEvent } from './telemetry/events.ts';
export { type TelemetryLevel, type TelemetryView, type TelemetryOptions, Telemetry } from './telemetry/telemetry.ts';
export {
  traceTracks,
  opTraceEvent,
  noticeTraceEvent,
  chromeTraceOf,
  type TraceEvent,
  type ChromeTrace,
  type TraceOptions,
} from './telemetry/chrome-trace.ts';
export { TELEMETRY_METRICS } from './telemetry/prometheus.ts';
export {
  quantizeQ8_0,
  quantizeQ4_0,
  dequantizeQ8_0,
  dequantizeQ4_0,
  quantizeAs,
  dequantizeFrom,
  encodeF16,
  decodeF16,
  type QuantizedDType,
} from './quant.ts';
export { createRng, type Rng } from './random.ts';
export { crc32 } from './crc32.ts';
export { percentile, median, sampleStats, type SampleStats } from './stats.ts';
export type { TensorSpec } from './tensor-spec.ts';
export { OP_DEFINITIONS } from './ops/index.ts';
export { ROPE_MODES, type RopeMode, type RopeOp } from './ops/rope.ts';
export type { AddOp } from './ops/add.ts';
export type { AttentionOp } from './ops/attention.ts';
export type { ConcatOp } from './ops/concat.ts';
export type { CosineSimilarityOp } from './ops/cosine_similarity.ts';
export type { DequantizeOp } from './ops/dequantize.ts';
export type { GeluOp } from './ops/gelu.ts';
export type { MatmulOp } from './ops/matmul.ts';
export type { MulOp } from './ops/mul.ts';
export type { QuantizedMatmulOp } from './ops/quantized_matmul.ts';
export type { RmsNormOp } from './ops/rms_norm.ts';
export type { ScaleOp } from './ops/scale.ts';
export type { SiluOp } from './ops/silu.ts';
export type { SoftmaxOp } from './ops/softmax.ts';
export type { SpreadActivationOp } from './ops/spread_activation.ts';
export type { SwigluOp } from './ops/swiglu.ts';
export type { TopKOp } from './ops/top_k.ts';
export type { EngineOptions, Explanation } from './engine-options.ts';
export { TIME_STEPS_EVERY, type SequenceRun, type SequenceRunOptions } from './engine-sequence.ts';
export {
  RecordedSequence,
  type RecordedStep,
  type SequenceSpec,
  type SequenceStepSpec,
  type SequenceTensor,
} from './sequence.ts';
export type { DecisionRow, SummaryRow, TelemetrySummary } from './telemetry/summary.ts';
