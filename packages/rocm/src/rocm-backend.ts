// RocmBackend: Tandem's CapableBackend over HIP (AMD through hipcc, NVIDIA through nvcc and tandem_hip.h).
// The native addon (packages/rocm/build/<variant>/tandem_rocm.node) owns the device: buffers stay resident, each
// run executes on the device's worker thread off the JS thread (short ones on the JS thread while that queue is
// idle: `inline`), and kernel time comes from events around it.
// init() never throws: no build, a build that fails to load, or no device all resolve { ok: false, reason }.
import {
  BackendError,
  byteLengthOf,
  errorMessage,
  InvalidArgumentError,
  mapOpTensors,
  numel,
  readSetting,
  type BackendHealth,
  type BackendSequence,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type PerformanceProfile,
  type RecordedSequence,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import type { AddonPlatform, NativeDevice, NativeDeviceInfo, NativeSequenceHandle } from './addon-api.ts';
import { ROCM_CAPABILITIES } from './capabilities.ts';
import { encodeOp } from './encode-op.ts';
import {
  checkInlineLimits,
  DEFAULT_INLINE_LIMITS,
  inlinesCopy,
  inlinesOp,
  inlinesSequence,
  type InlineLimits,
} from './inline-limits.ts';
import { nativeSequenceSpec } from './rocm-sequence.ts';
import { BACKEND_NAME, isDeviceLoss, toBackendError } from './hip-errors.ts';
import { addonCandidates, BUILD_COMMAND, loadAddon } from './load-addon.ts';
import { performanceProfile } from './profile.ts';
import type { DeviceLimits, EncodeOptions, QuantizedActivations } from './kernel-support.ts';
import { NATIVE_PARAMS } from './kernel-table.ts';
import { parameterDrift } from './native-params.ts';
import { checkRocmSupport } from './support.ts';

/**
 * How long one reading of the device's free memory is reused, ms. The engine asks on every decision it does not
 * reuse, and the native query (hipMemGetInfo / cudaMemGetInfo) costs microseconds; this backend's own allocations
 * and frees since the reading are counted in, so only other processes' use can be up to this stale.
 */
const FREE_MEMORY_TTL_MS = 10;

/** Construction options. */
export interface RocmBackendOptions {
  /** A tandem_rocm.node to load instead of the built variants (default: $TANDEM_ROCM_ADDON). */
  readonly addonPath?: string;
  /** Folder holding the built variants (<buildDir>/<amd|nvidia>/tandem_rocm.node; default packages/rocm/build). */
  readonly buildDir?: string;
  /** Runtime device index (default 0, on the first build that has a device). */
  readonly deviceIndex?: number;
  /** Scheduling priority (default 5). */
  readonly priority?: number;
  /** Milliseconds clock that ages the free-memory reading (default performance.now). */
  readonly clock?: () => number;
  /**
   * quantizedMatmul's activations (default 'f32', exact). 'q8' rounds x to int8 per block of 32 values
   * (d = max|x| / 127) and uses integer dot products for M <= 8 rows: faster, and each output then differs from
   * the exact result by at most sum over blocks of max|x_b| / 254 * sum|w_b| (plus f32 rounding); a block with a
   * non-finite value gives NaN outputs. Shown as the feature 'quantized-activations:q8' in describe().
   */
  readonly quantizedActivations?: QuantizedActivations;
  /**
   * Short work runs on the JS thread while the device's queue is idle, instead of going to its worker thread and
   * back: two thread hand-offs cost more than a small kernel (packages/rocm/README.md, inline runs). The JS thread then waits for the device, and a hung kernel cannot be given up on.
   * Default DEFAULT_INLINE_LIMITS on a GPU; false (never) on the CPU emulation, whose kernels take milliseconds.
   */
  readonly inline?: InlineLimits | false;
}

/** describe() of the ROCm backend: the core description plus what the runtime reported. */
export interface RocmDeviceDescription extends DeviceDescription {
  /** 'amd' (hipcc build), 'nvidia' (nvcc build) or 'emulated' (CPU emulation, tests only); absent before init. */
  readonly platform?: AddonPlatform;
  /** The runtime's view of the device; absent before init. */
  readonly device?: NativeDeviceInfo;
  /** The .node file in use; absent before init. */
  readonly addonPath?: string;
}

/** An opened device. */
interface Session {
  readonly platform: AddonPlatform;
  readonly path: string;
  readonly info: NativeDeviceInfo;
  readonly device: NativeDevice;
  lostReason: string | undefined;
  /** What supportsOp checks against (built once: decisions call it). */
  readonly limits: DeviceLimits;
  /** The device's roofline prior. */
  readonly profile: PerformanceProfile;
  /** What runs inline (false: nothing). */
  readonly inline: InlineLimits | false;
}

/** What a DeviceBuffer handle stands for. */
interface BufferRecord {
  readonly nativeId: number;
  readonly session: Session;
  readonly handle: DeviceBuffer;
}

/** Tandem's ROCm / HIP backend. */
export class RocmBackend implements CapableBackend {
  /** Backend name in telemetry and errors. */
  readonly name = BACKEND_NAME;
  /** An offload target. */
  readonly kind = 'gpu' as const;
  /** Tried before other backends among equals (default 5). */
  readonly priority: number;
  /** Ops and dtypes implemented. */
  readonly capabilities: readonly Capability[] = ROCM_CAPABILITIES;

  private readonly options: RocmBackendOptions;
  private readonly encoding: EncodeOptions;
  private readonly buffers = new Map<number, BufferRecord>();
  private nextId = 1;
  private session: Session | undefined;
  /** The last free-memory reading: bytes, when (performance.now()), and bytes this backend allocated since (net). */
  private freeReading: { readonly bytes: number; readonly at: number; ownSince: number } | undefined;
  private initFailure: string | undefined;
  private disposed = false;

  constructor(options: RocmBackendOptions = {}) {
    if (
      options.quantizedActivations !== undefined &&
      options.quantizedActivations !== 'f32' &&
      options.quantizedActivations !== 'q8'
    ) {
      throw new InvalidArgumentError('quantizedActivations', options.quantizedActivations, "'f32' or 'q8'");
    }
    checkInlineLimits(options.inline);
    this.options = options;
    this.priority = options.priority ?? 5;
    this.encoding =
      options.quantizedActivations === undefined ? {} : { quantizedActivations: options.quantizedActivations };
  }

  /** Loads the addon and opens the device (again, after a loss); resolves { ok: false, reason } when it can't. */
  async init(): Promise<InitResult> {
    if (this.disposed) return { ok: false, reason: 'the backend was disposed' };
    if (this.session !== undefined && this.session.lostReason === undefined) return { ok: true };
    this.closeSession();
    const result = this.open();
    this.initFailure = result.ok ? undefined : result.reason;
    return result;
  }

  /** The device, its memory and features (hip-amd, hip-nvidia or hip-emulated; arch:...), and a roofline prior. */
  describe(): RocmDeviceDescription {
    const s = this.session;
    if (s === undefined) return { name: 'ROCm/HIP (no device)', features: [] };
    const available = this.availableMemory();
    return {
      name: s.info.name,
      memoryBytes: s.info.totalMemory,
      ...(available === undefined ? {} : { availableMemoryBytes: available }),
      features: [
        `hip-${s.platform}`,
        `arch:${s.info.arch}`,
        ...(this.encoding.quantizedActivations === 'q8' ? ['quantized-activations:q8'] : []),
      ],
      performance: s.profile,
      software: s.platform === 'emulated',
      platform: s.platform,
      device: s.info,
      addonPath: s.path,
    };
  }

  /** Capability table, the addon's kernel for the op, then its limits here (attention head size, topK's k, grids). */
  supportsOp(op: Op<TensorSpec>): SupportVerdict {
    const s = this.session;
    if (s === undefined) return { ok: false, reason: `not initialised: ${this.initFailure ?? 'init() has not run'}` };
    return checkRocmSupport(op, s.limits);
  }

  /** Free device memory now, bytes (a reading at most FREE_MEMORY_TTL_MS old, less this backend's allocations since). */
  availableMemory(): number | undefined {
    const s = this.session;
    if (s === undefined || s.lostReason !== undefined) return undefined;
    const now = this.options.clock?.() ?? performance.now();
    if (this.freeReading === undefined || now - this.freeReading.at > FREE_MEMORY_TTL_MS) {
      try {
        this.freeReading = { bytes: s.device.memoryInfo().free, at: now, ownSince: 0 };
      } catch {
        return undefined;
      }
    }
    return Math.max(0, this.freeReading.bytes - this.freeReading.ownSince);
  }

  /** Copies host bytes (in the dtype's layout) into a new device buffer. */
  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    const expected = byteLengthOf(spec.dtype, numel(spec.shape));
    if (data.byteLength !== expected)
      throw new InvalidArgumentError(
        'upload.data.byteLength',
        data.byteLength,
        `must be ${expected} for ${spec.dtype}[${spec.shape.join(', ')}]`,
      );
    const what = `upload ${spec.dtype}[${spec.shape.join(', ')}]`;
    const s = this.ready(what);
    const nativeId = await this.call(s, what, expected, () => s.device.upload(data, inlinesCopy(s.inline, expected)));
    return this.register(nativeId, s, expected);
  }

  /** Copies a buffer back to the host. */
  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    const record = this.lookup(buffer, 'download');
    const s = record.session;
    const runInline = inlinesCopy(s.inline, buffer.byteLength);
    // Pinned blocks come back when the arrays holding them are collected, through finalizers that run on the event
    // loop; a loop of inline calls never gives it a turn, so a short pool gets one here (else: pageable memory).
    if (runInline && !s.device.pinnedBlockFree(buffer.byteLength))
      await new Promise((resolve) => setImmediate(resolve));
    return this.call(s, `download buffer ${buffer.id}`, 0, () => s.device.download(record.nativeId, runInline));
  }

  /** Releases a buffer (after the work queued before it); unknown handles are ignored. Never throws. */
  free(buffer: DeviceBuffer): void {
    const record = this.buffers.get(buffer.id);
    if (buffer.backend !== BACKEND_NAME || record === undefined || record.handle.byteLength !== buffer.byteLength)
      return;
    this.buffers.delete(buffer.id);
    if (this.freeReading !== undefined) this.freeReading.ownSince -= buffer.byteLength;
    try {
      record.session.device.free(record.nativeId);
    } catch {
      // a closed device has already released it
    }
  }

  /** Runs one op on resident inputs into new outputs; resolves with the kernel time the device measured. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const s = this.ready(op.op);
    const spec = mapOpTensors(op, (t): TensorSpec => ({ dtype: t.dtype, shape: t.shape }));
    const verdict = this.supportsOp(spec);
    if (!verdict.ok) throw new BackendError('UNSUPPORTED', BACKEND_NAME, verdict.reason);
    const call = encodeOp(op, this.encoding);
    const inputIds = call.inputs.map((t) => this.lookup(t.buffer, op.op, s).nativeId);
    const outputBytes = outputs.map((o) => byteLengthOf(o.dtype, numel(o.shape)));
    const requested = outputBytes.reduce((a, b) => a + b, 0);
    const runInline = inlinesOp(s.inline, s.profile, spec, outputs);
    const result = await this.call(s, `${op.op} (${call.kernel})`, requested, () =>
      s.device.run(call.kernel, inputIds, outputBytes, call.params, runInline),
    );
    if (result.outputs.length !== outputs.length)
      throw new BackendError(
        'BAD_OUTPUT',
        BACKEND_NAME,
        `${call.kernel} returned ${result.outputs.length} outputs, expected ${outputs.length}`,
      );
    const handles = result.outputs.map((nativeId, i) => this.register(nativeId, s, outputBytes[i] ?? 0));
    return { outputs: handles, kernelMs: result.kernelMs };
  }

  /**
   * Checks a recorded sequence once in the addon; each run then launches all its kernels in one job. Prepared again
   * on the device opened after a loss. Throws BackendError UNSUPPORTED when the addon refuses it.
   */
  prepareSequence(sequence: RecordedSequence): BackendSequence {
    const spec = nativeSequenceSpec(sequence, this.encoding);
    const prepare = (s: Session): NativeSequenceHandle => {
      try {
        return s.device.prepareSequence(spec);
      } catch (error) {
        throw new BackendError('UNSUPPORTED', BACKEND_NAME, `the addon refused the sequence: ${errorMessage(error)}`);
      }
    };
    let session = this.ready('prepareSequence');
    let handle = prepare(session);
    const keptBytes = sequence.keep.map((id) => sequence.byteLengthOf(id));
    const requested = keptBytes.reduce((a, b) => a + b, 0);
    const runInline = inlinesSequence(session.inline, session.profile, sequence);
    return {
      run: async (inputs, timeSteps) => {
        const s = this.ready('sequence');
        if (s !== session) {
          handle = prepare(s);
          session = s;
        }
        const ids = inputs.map((b) => this.lookup(b, 'sequence', s).nativeId);
        const result = await this.call(s, `sequence of ${sequence.steps.length} kernels`, requested, () =>
          s.device.runSequence(handle, ids, timeSteps, runInline),
        );
        const outputs = result.outputs.map((nativeId, k) => this.register(nativeId, s, keptBytes[k] ?? 0));
        return {
          outputs,
          kernelMs: result.kernelMs,
          graph: result.graph,
          ...(result.graph ? { captures: result.captures } : {}),
          ...(timeSteps ? { stepKernelMs: result.stepMs } : {}),
        };
      },
    };
  }

  /**
   * Benchmarks: the kernel time per launch of `launches` back-to-back launches, ops[i % ops.length] for launch i
   * (ops that differ only in their input buffers, e.g. weight copies rotated past the cache); outputs are not kept.
   * run()'s kernelMs includes the host's launch gap after its start event, a few microseconds.
   */
  async timeLaunches(
    ops: readonly Op<BoundTensor>[],
    outputs: readonly TensorSpec[],
    launches: number,
  ): Promise<number> {
    const first = ops[0];
    if (first === undefined) throw new InvalidArgumentError('ops', 0, 'at least one op');
    if (!Number.isInteger(launches) || launches < 1 || launches > 100_000)
      throw new InvalidArgumentError('launches', launches, 'an integer from 1 to 100000');
    const s = this.ready(first.op);
    const { kernel, params } = encodeOp(first, this.encoding);
    const calls = ops.map((op) => encodeOp(op, this.encoding));
    for (const [i, call] of calls.entries()) {
      if (call.kernel !== kernel || JSON.stringify(call.params) !== JSON.stringify(params)) {
        throw new InvalidArgumentError(
          `ops[${i}]`,
          call.kernel,
          `the same kernel and parameters as ops[0] (${kernel})`,
        );
      }
    }
    const inputSets = calls.map((call, i) =>
      call.inputs.map((t) => this.lookup(t.buffer, ops[i]?.op ?? first.op, s).nativeId),
    );
    const outputBytes = outputs.map((o) => byteLengthOf(o.dtype, numel(o.shape)));
    const requested = outputBytes.reduce((a, b) => a + b, 0);
    const result = await this.call(s, `${first.op} (${kernel}) x${launches}`, requested, () =>
      s.device.time(kernel, inputSets, outputBytes, params, launches),
    );
    return result.kernelMs;
  }

  /** 'healthy' with a device; 'unhealthy' after a device fault; 'unavailable' before init or when it failed. */
  health(): BackendHealth {
    if (this.disposed) return { state: 'unavailable', reason: 'the backend was disposed' };
    const s = this.session;
    if (s === undefined) return { state: 'unavailable', reason: this.initFailure ?? 'not initialised' };
    if (s.lostReason !== undefined) return { state: 'unhealthy', reason: `device fault: ${s.lostReason}` };
    return { state: 'healthy' };
  }

  /** Waits for queued work, frees every buffer and closes the device; later calls reject. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.closeSession();
  }

  private open(): InitResult {
    const candidates = addonCandidates(
      this.options.addonPath ?? readSetting(process.env, 'TANDEM_ROCM_ADDON'),
      this.options.buildDir,
    );
    if (candidates.length === 0) {
      return {
        ok: false,
        reason: `the ROCm addon is not built: run \`${BUILD_COMMAND}\` (needs hipcc or nvcc), or set TANDEM_ROCM_ADDON to a tandem_rocm.node`,
      };
    }
    const index = this.options.deviceIndex ?? 0;
    const problems: string[] = [];
    for (const path of candidates) {
      const load = loadAddon(path);
      if (!load.ok) {
        problems.push(load.reason);
        continue;
      }
      const addon = load.addon;
      const label = `${addon.platform} build`;
      const list = addon.devices();
      if (list.count === 0) {
        problems.push(
          `${label}: no device (${list.error ?? 'none reported'}${list.message === undefined ? '' : `: ${list.message}`})`,
        );
        continue;
      }
      const info = list.devices.find((d) => d.index === index);
      if (info === undefined) {
        problems.push(`${label}: no device ${index} (${list.count} found)`);
        continue;
      }
      const kernels = addon.kernels();
      const drift = parameterDrift(NATIVE_PARAMS, kernels);
      if (drift.length > 0) {
        problems.push(`${label}: built from other kernel sources (${drift.join('; ')}): rebuild it (${BUILD_COMMAND})`);
        continue;
      }
      try {
        const features = [`hip-${addon.platform}`, `arch:${info.arch}`];
        const limits: DeviceLimits = {
          warpSize: info.warpSize,
          features,
          native: addon.limits,
          kernels: new Set(kernels.map((k) => k.name)),
        };
        const inline = this.options.inline ?? (addon.platform === 'emulated' ? false : DEFAULT_INLINE_LIMITS);
        this.session = {
          platform: addon.platform,
          path,
          info,
          device: new addon.Device(index),
          lostReason: undefined,
          limits,
          profile: performanceProfile(info),
          inline,
        };
        return { ok: true };
      } catch (error) {
        problems.push(`${label}: opening device ${index} failed: ${errorMessage(error)}`);
      }
    }
    return { ok: false, reason: `no usable ROCm/HIP device: ${problems.join('; ')}` };
  }

  private closeSession(): void {
    this.freeReading = undefined;
    const s = this.session;
    this.session = undefined;
    this.buffers.clear();
    if (s === undefined) return;
    try {
      s.device.close();
    } catch {
      // closing a faulted device may fail; its memory goes with the context
    }
  }

  private ready(what: string): Session {
    if (this.disposed) throw new BackendError('DISPOSED', BACKEND_NAME, `${what}: the backend was disposed`);
    const s = this.session;
    if (s === undefined)
      throw new BackendError('UNAVAILABLE', BACKEND_NAME, `${what}: ${this.initFailure ?? 'not initialised'}`);
    if (s.lostReason !== undefined)
      throw new BackendError(
        'DEVICE_LOST',
        BACKEND_NAME,
        `${what}: the device faulted earlier (${s.lostReason}); init() again`,
      );
    return s;
  }

  private async call<T>(s: Session, what: string, requestedBytes: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isDeviceLoss(error)) s.lostReason = errorMessage(error);
      throw toBackendError(error, what, requestedBytes);
    }
  }

  private register(nativeId: number, session: Session, byteLength: number): DeviceBuffer {
    const handle: DeviceBuffer = { backend: BACKEND_NAME, id: this.nextId++, byteLength };
    this.buffers.set(handle.id, { nativeId, session, handle });
    if (this.freeReading !== undefined) this.freeReading.ownSince += byteLength;
    return handle;
  }

  private lookup(buffer: DeviceBuffer, what: string, session?: Session): BufferRecord {
    const record = this.buffers.get(buffer.id);
    if (buffer.backend !== BACKEND_NAME || record === undefined || record.handle.byteLength !== buffer.byteLength) {
      throw new BackendError(
        'UNKNOWN_BUFFER',
        BACKEND_NAME,
        `${what}: buffer ${buffer.id} is not a live ${BACKEND_NAME} buffer`,
      );
    }
    if (session !== undefined && record.session !== session)
      throw new BackendError('UNKNOWN_BUFFER', BACKEND_NAME, `${what}: buffer ${buffer.id} belongs to a closed device`);
    return record;
  }
}
