// The shape of tandem_rocm.node (native-rocm/src/addon.cc, device.h), and a runtime check that a loaded module has it.

/** Which runtime a build targets: hipcc for AMD, nvcc through native-rocm/include/tandem_hip.h, or the CPU emulation (tests). */
export type AddonPlatform = 'amd' | 'nvidia' | 'emulated';

/** One GPU as the runtime describes it. */
export interface NativeDeviceInfo {
  /** Runtime device index. */
  readonly index: number;
  /** Marketing name, e.g. "NVIDIA H100 80GB HBM3". */
  readonly name: string;
  /** gfx target (gfx90a) on AMD, sm_XY on NVIDIA. */
  readonly arch: string;
  /** Device memory, bytes. */
  readonly totalMemory: number;
  /** Compute units / streaming multiprocessors. */
  readonly multiProcessors: number;
  /** Threads per warp (wavefront): 32 or 64. */
  readonly warpSize: number;
  /** Shared memory (LDS) per block, bytes. */
  readonly sharedMemoryPerBlock: number;
  /** Compute capability major (NVIDIA) or GCN major (AMD). */
  readonly computeMajor: number;
  /** Compute capability minor. */
  readonly computeMinor: number;
  /** Peak core clock, kHz (0 when the runtime does not say). */
  readonly clockKHz: number;
  /** Peak memory clock, kHz (0 when unknown). */
  readonly memoryClockKHz: number;
  /** Memory bus width, bits (0 when unknown). */
  readonly memoryBusWidthBits: number;
}

/** devices(): never throws; with no usable device, count is 0 and error names the runtime's answer. */
export interface NativeDeviceList {
  /** Devices the runtime reports. */
  readonly count: number;
  /** hipGetDeviceCount's error name (hipErrorNoDevice, cudaErrorInsufficientDriver, ...), when it failed. */
  readonly error?: string;
  /** The runtime's description of that error. */
  readonly message?: string;
  /** Runtime version number. */
  readonly runtimeVersion: number;
  /** Driver version number (0 without a driver). */
  readonly driverVersion: number;
  /** One entry per device that answered. */
  readonly devices: readonly NativeDeviceInfo[];
}

/** What a native run resolves with. */
export interface NativeRunResult {
  /** Ids of the new output buffers, in order. */
  readonly outputs: readonly number[];
  /** Time between the events around the op's kernels, ms. */
  readonly kernelMs: number;
}

/** A run of kernels as prepareSequence takes it (native-rocm/src/sequence.h): values are the inputs, then each step's outputs. */
export interface NativeSequenceSpec {
  /** Bytes each input buffer must have. */
  readonly inputBytes: readonly number[];
  /** The steps, in order. */
  readonly steps: readonly NativeSequenceStep[];
  /** Values handed back as buffers (step outputs), in order. */
  readonly keep: readonly number[];
}

/** One step of a NativeSequenceSpec. */
export interface NativeSequenceStep {
  /** Native kernel id. */
  readonly kernel: string;
  /** Values it reads, in the kernel's input order. */
  readonly inputs: readonly number[];
  /** Bytes of each output. */
  readonly outputBytes: readonly number[];
  /** Its parameters. */
  readonly params: Readonly<Record<string, number>>;
  /** Values no later step reads (freed after this step unless inputs or kept). */
  readonly release: readonly number[];
}

declare const nativeSequence: unique symbol;
/** The handle prepareSequence returns (an opaque native object). */
export interface NativeSequenceHandle {
  /** Brand: only prepareSequence makes these. */
  readonly [nativeSequence]: true;
}

/** What a native sequence run resolves with. */
export interface NativeSequenceResult {
  /** Ids of the kept values' new buffers, in keep order. */
  readonly outputs: readonly number[];
  /** Time between the events around all the kernels, ms. */
  readonly kernelMs: number;
  /** Each step's kernel time, ms, when asked for (else empty). */
  readonly stepMs: readonly number[];
  /** Whether it ran as the plan's captured graph (untimed runs from the second, on builds with graphs). */
  readonly graph: boolean;
  /** After a graph run: the plan's captures so far (the first, then one per moved input or scratch); else 0. */
  readonly captures: number;
}

/**
 * An opened device: every method queues work on the device's worker thread, in call order. Called with
 * `runInline` true, upload, download and run instead run on the calling (JS) thread when nothing is queued or
 * running, and return a promise already settled; free does so whenever the queue is idle.
 */
export interface NativeDevice {
  /** Runtime device index. */
  readonly index: number;
  /** Copies bytes into a new device buffer; resolves with its id. */
  upload(data: Uint8Array, runInline?: boolean): Promise<number>;
  /**
   * Copies a buffer into a new Uint8Array. From 64 KiB up the array is backed by a pinned host block that goes
   * back to the device's pool when the array is garbage-collected.
   */
  download(id: number, runInline?: boolean): Promise<Uint8Array>;
  /** Releases a buffer after the work queued before it; false for unknown ids. */
  free(id: number): boolean;
  /** Runs a native kernel on input buffers into new outputs of the given sizes. Rejects with error.code = HIP error name. */
  run(
    kernel: string,
    inputs: readonly number[],
    outputBytes: readonly number[],
    params: Readonly<Record<string, number>>,
    runInline?: boolean,
  ): Promise<NativeRunResult>;
  /**
   * Benchmarks: launches a kernel `launches` times back to back between two events (input set i % sets for launch
   * i; outputs allocated once, then released); resolves with the time per launch, without the host's launch gap.
   */
  time(
    kernel: string,
    inputSets: readonly (readonly number[])[],
    outputBytes: readonly number[],
    params: Readonly<Record<string, number>>,
    launches: number,
  ): Promise<{ readonly kernelMs: number }>;
  /** Checks a run of kernels once (kernels, parameters, sizes, which values each step reads); throws TANDEM_* errors. */
  prepareSequence(spec: NativeSequenceSpec): NativeSequenceHandle;
  /**
   * Launches every kernel of a prepared sequence back to back in one job on `inputs`; intermediates are freed inside.
   * `timeSteps` puts an event before each step. Runs inline as run() does.
   */
  runSequence(
    sequence: NativeSequenceHandle,
    inputs: readonly number[],
    timeSteps: boolean,
    runInline?: boolean,
  ): Promise<NativeSequenceResult>;
  /**
   * False when a download of `bytes` (64 KiB or more) would find no pinned host block now (none free in its size
   * class, no room to pin more) and land in pageable memory; true otherwise. Blocks come back when the arrays holding them are collected, and their finalizers run on the event loop.
   */
  pinnedBlockFree(bytes: number): boolean;
  /** Free and total device memory, and the pinned host memory of downloads (in use or cached), bytes. */
  memoryInfo(): { readonly free: number; readonly total: number; readonly pinnedHost: number };
  /** Waits for queued work, frees every buffer and stops the worker. */
  close(): void;
}

/** What a native kernel parameter holds: an integer in [0, 2^31), any number, or a 0/1 flag; '?' when optional. */
export type NativeParamKind = 'dim' | 'dim?' | 'number' | 'flag' | 'flag?';

/** One native kernel as the addon reports it (its parameter struct's field table, native-rocm/src/params.h). */
export interface NativeKernelInfo {
  /** Kernel id, e.g. "matmul_f32". */
  readonly name: string;
  /** Its parameters by name, in field order. */
  readonly params: Readonly<Record<string, NativeParamKind>>;
}

/** The kernels' limits (native-rocm/kernels/kernels.h), as the addon reports them. */
export interface NativeLimits {
  /** Largest k of top_k. */
  readonly topKMax: number;
  /** Head dimensions up to this many per warp lane run in attention (so up to this x warpSize). */
  readonly attentionDimsPerLane: number;
  /** Most output columns of an f32 matmul (grid limit x tile width). */
  readonly matmulMaxColumnsF32: number;
  /** Most output columns of an f16 matmul. */
  readonly matmulMaxColumnsF16: number;
  /** Above this many queries cosine similarity runs as an f32 matmul (and has its column limit). */
  readonly cosineWarpQueries: number;
  /** Above this many rows quantized matmul dequantizes and runs an f32 matmul (and has its column limit). */
  readonly quantizedDirectRows: number;
}

/** The keys of NativeLimits, for checking a loaded module. */
const LIMIT_KEYS: ReadonlyArray<keyof NativeLimits> = [
  'topKMax',
  'attentionDimsPerLane',
  'matmulMaxColumnsF32',
  'matmulMaxColumnsF16',
  'cosineWarpQueries',
  'quantizedDirectRows',
];

/** The module itself. */
export interface RocmAddon {
  /** Runtime the build targets. */
  readonly platform: AddonPlatform;
  /** Enumerates devices. */
  devices(): NativeDeviceList;
  /** The native kernels run() accepts, with their parameters. */
  kernels(): NativeKernelInfo[];
  /** The kernels' limits. */
  readonly limits: NativeLimits;
  /** Opens device `index`; throws an Error with code = HIP error name when it can't. */
  readonly Device: new (
    index: number,
  ) => NativeDevice;
}

/** Whether a loaded module looks like tandem_rocm.node. */
export function isRocmAddon(value: unknown): value is RocmAddon {
  if (typeof value !== 'object' || value === null) return false;
  const platform: unknown = Reflect.get(value, 'platform');
  const limits: unknown = Reflect.get(value, 'limits');
  const limitsFit =
    typeof limits === 'object' &&
    limits !== null &&
    LIMIT_KEYS.every((key) => typeof Reflect.get(limits, key) === 'number');
  return (
    limitsFit &&
    (platform === 'amd' || platform === 'nvidia' || platform === 'emulated') &&
    typeof Reflect.get(value, 'devices') === 'function' &&
    typeof Reflect.get(value, 'kernels') === 'function' &&
    typeof Reflect.get(value, 'Device') === 'function'
  );
}
