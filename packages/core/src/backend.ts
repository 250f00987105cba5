// The contract every backend implements. Small on purpose: see ggml-backend-impl.h and tinygrad's device.py.
import type { DType } from './dtype.ts';
import type { OpWork } from './op-info.ts';
import type { Op, OpKind, TensorSpec } from './ops.ts';
import type { RecordedSequence } from './sequence.ts';

/** CPU backends are the fallback of last resort; GPU backends are offload targets. */
export type BackendKind = 'cpu' | 'gpu';

/** A block of memory owned by one backend. The backend keeps the real buffer in its own map, keyed by id. */
export interface DeviceBuffer {
  /** Name of the backend that owns it. */
  readonly backend: string;
  /** Unique per backend. */
  readonly id: number;
  /** Size in bytes. */
  readonly byteLength: number;
}

/** A contiguous, row-major tensor living in a backend's buffer: what kernels receive. */
export interface BoundTensor extends TensorSpec {
  /** Where the bytes are. */
  readonly buffer: DeviceBuffer;
}

/** One row of a backend's capability table: "I can run `op` on these dtypes, up to this size". */
export interface Capability {
  /** Op id. */
  readonly op: OpKind;
  /** Dtypes of the op's first input this backend accepts. */
  readonly dtypes: readonly DType[];
}

/** Why a backend can or can't run a given op. */
export type SupportVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Result of init(): a backend that can't start says why, and the engine remembers it. */
export type InitResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Calibrated speeds used for the roofline prior before any measurement exists. */
export interface PerformanceProfile {
  /** Sustained arithmetic throughput, FLOP per millisecond. */
  readonly flopsPerMs: number;
  /** Sustained memory bandwidth, bytes per millisecond. */
  readonly bytesPerMs: number;
  /** Fixed cost of one call (dispatch, launch, round trip), milliseconds. */
  readonly launchMs: number;
  /** Host <-> backend transfer bandwidth, bytes per millisecond (Infinity when memory is shared with the host). */
  readonly transferBytesPerMs: number;
}

/** What the device behind a backend is. */
export interface DeviceDescription {
  /** Human-readable device name (adapter, CPU, GPU model). */
  readonly name: string;
  /** Total memory usable by this backend, bytes, when known. */
  readonly memoryBytes?: number;
  /** Memory still free for new buffers, bytes, when known. */
  readonly availableMemoryBytes?: number;
  /** Feature strings (e.g. 'simd', 'relaxed-simd', 'shader-f16', 'timestamp-query'). */
  readonly features: readonly string[];
  /** Roofline prior; absent means the engine's default for this backend kind. */
  readonly performance?: PerformanceProfile;
  /** A GPU emulated on the CPU (SwiftShader, lavapipe, WARP): a GPU backend in name only; absent means false. */
  readonly software?: boolean;
}

/** Backend health: the scheduler skips anything not healthy or degraded. */
export type BackendHealth =
  | { readonly state: 'healthy' }
  | { readonly state: 'degraded'; readonly reason: string }
  | { readonly state: 'unhealthy'; readonly reason: string }
  | { readonly state: 'unavailable'; readonly reason: string };

/** What run() hands back. */
export interface RunResult {
  /** One buffer per output spec, in order; owned by the caller from now on. */
  readonly outputs: readonly DeviceBuffer[];
  /** Time the backend measured for the op itself (kernel or device time where it can tell), ms. */
  readonly kernelMs: number;
}

/** What one run of a BackendSequence hands back. */
export interface SequenceRunResult extends RunResult {
  /** One buffer per kept value, in the sequence's `keep` order; owned by the caller from now on. */
  readonly outputs: readonly DeviceBuffer[];
  /** Device time of the whole run, ms. */
  readonly kernelMs: number;
  /** Each step's device time, ms (absent when the run was asked not to time steps). */
  readonly stepKernelMs?: readonly number[];
  /** Whether the device ran it as one captured graph of launches (a HIP / CUDA graph), with no host work per step. */
  readonly graph?: boolean;
  /** With `graph`: the graphs captured for this sequence so far (the first, then one per input that moved). */
  readonly captures?: number;
}

/** A recorded sequence a backend has prepared to run in one call (graph replay: one launch instead of one per op). */
export interface BackendSequence {
  /**
   * Runs every step on `inputs` (the sequence's inputs, in order, resident on this backend); `timeSteps` asks for
   * each step's device time. Intermediates are freed inside; rejects with a BackendError, having freed what it made.
   */
  run(inputs: readonly DeviceBuffer[], timeSteps: boolean): Promise<SequenceRunResult>;
}

/** A compute backend: WASM, WebGPU, ROCm, the reference, or a test double. */
export interface CapableBackend {
  /** Unique name, used in telemetry and `{ only: name }`. */
  readonly name: string;
  /** 'cpu' or 'gpu'. */
  readonly kind: BackendKind;
  /** Lower runs first among equals (tie-break and fallback order). */
  readonly priority: number;
  /** Never chosen by a strategy: tried only when no other backend can take the op or all of them failed (the reference). */
  readonly fallbackOnly?: boolean;
  /**
   * Its first run of an op compiles what the op needs (WebGPU's pipelines): `auto` then serves that call from another
   * backend while the first run goes on in the background (reason `warming`). Absent: false (kernels built ahead).
   */
  readonly compilesOnFirstRun?: boolean;
  /** Ops and dtypes this backend implements, as data. */
  readonly capabilities: readonly Capability[];
  /** Acquires the device; resolves { ok: false, reason } instead of throwing when it can't. */
  init(): Promise<InitResult>;
  /** The device, its memory and features; valid after a successful init(). */
  describe(): DeviceDescription;
  /** Bytes free for new buffers now, if known; called on every decision, so keep it cheap (else describe() is used). */
  availableMemory?(): number | undefined;
  /**
   * Whether this op (shapes, dtypes, parameters) can run here; defaults to the capability table. `outputs`: the op's
   * output specs when the caller has inferred them already (the engine has; saves inferring them again).
   */
  supportsOp?(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict;
  /** Temporary bytes run() allocates for this op beside its outputs, counted against availableMemory; absent means none. */
  scratchBytes?(op: Op<TensorSpec>, outputs: readonly TensorSpec[]): number;
  /** Optional prior cost in ms for an op, before any measurement; overrides the roofline. */
  estimateCost?(op: Op<TensorSpec>, work: OpWork): number | undefined;
  /** Copies host bytes into a new buffer on this backend. */
  upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer>;
  /** Copies a buffer back to the host, into bytes the caller owns (nothing else may keep or change them). */
  download(buffer: DeviceBuffer): Promise<Uint8Array>;
  /** Releases a buffer; using it afterwards is an error. Never throws. */
  free(buffer: DeviceBuffer): void;
  /** Runs one op on resident inputs, allocating its outputs; rejects with a BackendError on failure. */
  run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult>;
  /**
   * Prepares a recorded sequence (every step already supported here) to run in one call; throws a BackendError
   * (UNSUPPORTED) when it cannot, and the engine then runs the steps one by one. Absent: always one by one.
   */
  prepareSequence?(sequence: RecordedSequence): BackendSequence;
  /** Current health; a lost device reports 'unhealthy' until it recovers. */
  health(): BackendHealth;
  /** Releases the device and every buffer. */
  dispose(): Promise<void>;
}
