// WebGPU in a child process, like a browser's GPU process: a CapableBackend (name 'webgpu', kind 'gpu') whose
// calls are served by a WebGpuBackend on dawn.node in a forked Node process. A native crash there (an abort
// inside Dawn, a driver fault, a kill) ends only that process: every pending call rejects with a
// DeviceLostError naming the exit code or signal, health() turns 'unhealthy', and the next init() (or
// upload()/run(), as in-process) starts a fresh process. Buffers of a dead process are refused.
import {
  BackendError,
  DeviceLostError,
  errorMessage,
  mapOpTensors,
  median,
  type BackendHealth,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type DeviceBuffer,
  type InitResult,
  type Op,
  type PerformanceProfile,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import { WEBGPU_CAPABILITIES } from '../capabilities.ts';
import { DEFAULT_LIMITS } from '../device-context.ts';
import { BACKEND_NAME } from '../gpu-errors.ts';
import { checkWebGpuSupport } from '../support.ts';
import { GpuProcessConnection } from './child-connection.ts';
import { resolveChildLaunch, type ChildLaunch } from './launch.ts';
import type { ProcessDeviceDescription, ProcessWebGpuOptions } from './process-options.ts';
import type { GpuProcessSetup, RemoteBuffer, RemoteDescription, RemoteTensor, RepliedRequestType } from './protocol.ts';

/** One handle given out: which GPU process holds the buffer, and its id there. */
interface ProxyBuffer {
  /** The child that owns it (a handle of an earlier, dead child is refused). */
  readonly connection: GpuProcessConnection;
  /** Buffer id in that child. */
  readonly remoteId: number;
}

/** About what 16 MiB each way through the IPC channel measured (advanced serialization; process/README.md). */
const DEFAULT_IPC_BYTES_PER_MS = 1e6;
/** Round trips timed after start to add to the launch cost prior. */
const PINGS = 5;

/** Tandem's WebGPU backend, served by a child process. */
export class ProcessWebGpuBackend implements CapableBackend {
  /** Same name as the in-process backend: it is the same backend to the engine and in telemetry. */
  readonly name = BACKEND_NAME;
  /** An offload target. */
  readonly kind = 'gpu' as const;
  /** The first run of an op creates its pipelines (shader compilation in the driver). */
  readonly compilesOnFirstRun = true;
  /** Tie-break and fallback order, lower first (20 unless given). */
  readonly priority: number;
  /** Ops and dtypes implemented (the in-process table). */
  readonly capabilities: readonly Capability[] = WEBGPU_CAPABILITIES;

  private readonly options: ProcessWebGpuOptions;
  private readonly handles = new Map<number, ProxyBuffer>();
  private nextHandle = 1;
  private connection: GpuProcessConnection | undefined;
  private generation = 0;
  private remote: RemoteDescription | undefined;
  private childHealth: BackendHealth = { state: 'unavailable', reason: 'the GPU process is starting' };
  private initFailure: string | undefined;
  private starting: Promise<InitResult> | undefined;
  private pingMs = 0;
  private disposed = false;

  constructor(options: ProcessWebGpuOptions = {}) {
    this.options = options;
    this.priority = options.priority ?? 20;
  }

  /** Starts the GPU process if none is running (again, after one died) and initialises WebGPU there. */
  init(): Promise<InitResult> {
    if (this.disposed) return Promise.resolve({ ok: false, reason: 'the backend was disposed' });
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** The child's adapter, limits and features, with IPC costs folded into the prior; placeholders before init(). */
  describe(): ProcessDeviceDescription {
    const remote = this.remote;
    const processId = this.live()?.pid;
    if (remote === undefined) {
      return {
        name: 'WebGPU in a GPU process (not started)',
        features: [],
        maxStorageBufferBindingSize: DEFAULT_LIMITS.maxStorageBufferBindingSize,
        maxBufferSize: DEFAULT_LIMITS.maxBufferSize,
        software: false,
        processId,
      };
    }
    const { performance: prior, ...description } = remote.description;
    return {
      ...description,
      name: `${description.name} (GPU process ${processId ?? 'gone'})`,
      ...(prior === undefined ? {} : { performance: this.withIpc(prior) }),
      processId,
    };
  }

  /** Capability table, then the child device's limits (as in-process). */
  supportsOp(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
    return checkWebGpuSupport(op, this.remote?.limits ?? DEFAULT_LIMITS, outputs);
  }

  /** Copies host bytes into a new buffer in the GPU process. */
  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    const what = `upload ${spec.dtype}[${spec.shape.join(', ')}]`;
    const connection = await this.ready(what);
    return this.adopt(await connection.request('upload', { data, spec: plainSpec(spec) }, what), connection);
  }

  /** Copies a buffer back from the GPU process. */
  async download(handle: DeviceBuffer): Promise<Uint8Array> {
    const what = `download buffer ${handle.id}`;
    const { connection, remoteId } = this.resolve(handle, what);
    const bytes = await connection.request('download', { buffer: remoteId }, what);
    // Bytes arrive as a view into the IPC message at any offset: realign so typed-array views work.
    return bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  }

  /** Releases a buffer (no reply awaited); handles of a dead process and unknown handles are ignored. */
  free(handle: DeviceBuffer): void {
    if (handle.backend !== BACKEND_NAME) return;
    const record = this.handles.get(handle.id);
    if (record === undefined) return;
    this.handles.delete(handle.id);
    if (!record.connection.exited) record.connection.free(record.remoteId);
  }

  /** Runs one op in the GPU process on resident inputs; outputs stay there. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const connection = await this.ready(op.op);
    const remoteOp: Op<RemoteTensor> = mapOpTensors(op, (t, name) => ({
      ...plainSpec(t),
      buffer: this.resolve(t.buffer, `${op.op}.${name}`).remoteId,
    }));
    const result = await connection.request('run', { op: remoteOp, outputs: outputs.map(plainSpec) }, `run ${op.op}`);
    return { outputs: result.outputs.map((b) => this.adopt(b, connection)), kernelMs: result.kernelMs };
  }

  /** The child's health; 'unhealthy' once the process died, until a new one is started. */
  health(): BackendHealth {
    if (this.disposed) return { state: 'unavailable', reason: 'the backend was disposed' };
    const connection = this.connection;
    if (connection === undefined) return { state: 'unavailable', reason: this.initFailure ?? 'not initialised' };
    if (connection.exited)
      return { state: 'unhealthy', reason: `GPU process ${connection.pid ?? '?'} ${connection.exit ?? 'is gone'}` };
    if (this.remote === undefined)
      return { state: 'unavailable', reason: this.initFailure ?? 'the GPU process is starting' };
    return this.childHealth;
  }

  /** Disposes the child's backend and ends the process (SIGKILL after closeGraceMs); later calls reject. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.starting;
    this.handles.clear();
    await this.connection?.close(this.options.closeGraceMs ?? 5_000);
  }

  /** Process id of the running GPU process, if any (diagnostics, tests). */
  processId(): number | undefined {
    return this.live()?.pid;
  }

  /** Sends a signal to the GPU process (tests: exercise a crash). */
  killProcess(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.live()?.kill(signal);
  }

  /** Requests sent to the GPU process and not answered yet, of one type ('run', 'upload', ...) or all. */
  pendingRequests(type?: RepliedRequestType): number {
    return this.live()?.pendingCount(type) ?? 0;
  }

  /** Median round trip of an empty request to the child, ms (0 before start). */
  roundTripMs(): number {
    return this.pingMs;
  }

  private async start(): Promise<InitResult> {
    let connection = this.live();
    const fresh = connection === undefined;
    if (connection === undefined) {
      const launch = resolveChildLaunch({
        ...(this.options.entry === undefined ? {} : { entry: this.options.entry }),
        ...(this.options.execArgv === undefined ? {} : { execArgv: this.options.execArgv }),
      });
      if ('failed' in launch) return this.failInit(launch.failed, undefined);
      connection = this.spawn(launch);
    }
    const timeoutMs = this.options.initTimeoutMs ?? 30_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.kill('SIGKILL');
    }, timeoutMs);
    try {
      const result = await connection.request('init', { setup: this.setup() }, 'init');
      if (!result.ok) return await this.failInit(result.reason, connection);
      this.remote = await connection.request('describe', {}, 'describe');
      if (fresh) this.pingMs = await this.measurePing(connection);
      this.initFailure = undefined;
      return { ok: true };
    } catch (error) {
      const pid = connection.pid ?? '?';
      const why = timedOut
        ? `it did not finish within ${timeoutMs} ms and was killed`
        : connection.exited
          ? `process ${pid} ${connection.exit ?? 'ended'}`
          : errorMessage(error);
      return await this.failInit(`could not start WebGPU in a GPU process: ${why}`, connection);
    } finally {
      clearTimeout(timer);
    }
  }

  private spawn(launch: ChildLaunch): GpuProcessConnection {
    const generation = ++this.generation;
    this.remote = undefined;
    this.childHealth = { state: 'unavailable', reason: 'the GPU process is starting' };
    const connection = GpuProcessConnection.start(
      launch,
      {
        stderr: this.options.stderr ?? 'forward',
        ...(this.options.env === undefined ? {} : { env: this.options.env }),
      },
      {
        onHealth: (health) => {
          if (generation === this.generation) this.childHealth = health;
        },
        onExit: () => {
          if (generation === this.generation) this.remote = undefined;
        },
      },
    );
    this.connection = connection;
    return connection;
  }

  private setup(): GpuProcessSetup {
    const o = this.options;
    return {
      swiftShader: o.swiftShader ?? false,
      ...(o.dawnFlags === undefined ? {} : { dawnFlags: o.dawnFlags }),
      ...(o.powerPreference === undefined ? {} : { powerPreference: o.powerPreference }),
      ...(o.maxPooledBytes === undefined ? {} : { maxPooledBytes: o.maxPooledBytes }),
    };
  }

  private async measurePing(connection: GpuProcessConnection): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < PINGS; i++) {
      const t0 = performance.now();
      await connection.request('health', {}, 'ping');
      times.push(performance.now() - t0);
    }
    return median(times);
  }

  /** Records why init failed and ends a child that could not start WebGPU. */
  private async failInit(reason: string, connection: GpuProcessConnection | undefined): Promise<InitResult> {
    this.initFailure = reason;
    if (connection !== undefined) {
      await connection.close(this.options.closeGraceMs ?? 5_000);
      if (this.connection === connection) this.connection = undefined;
    }
    return { ok: false, reason };
  }

  /** The running child, if any. */
  private live(): GpuProcessConnection | undefined {
    const connection = this.connection;
    return connection !== undefined && !connection.exited ? connection : undefined;
  }

  /** A running, initialised child: starts one if needed (as in-process re-acquires a lost device). */
  private async ready(what: string): Promise<GpuProcessConnection> {
    if (this.disposed) throw new BackendError('DISPOSED', BACKEND_NAME, `${what}: the backend was disposed`);
    const current = this.live();
    if (current !== undefined && this.remote !== undefined) return current;
    const previousExit =
      this.connection?.exited === true
        ? `GPU process ${this.connection.pid ?? '?'} ${this.connection.exit ?? ''}`
        : undefined;
    const result = await this.init();
    const connection = this.live();
    if (result.ok && connection !== undefined) return connection;
    const reason = result.ok ? 'the GPU process is gone' : result.reason;
    if (previousExit !== undefined)
      throw new DeviceLostError(BACKEND_NAME, `${previousExit}; starting a new one failed: ${reason} (during ${what})`);
    throw new BackendError('UNAVAILABLE', BACKEND_NAME, `${what}: ${reason}`);
  }

  /** A handle's buffer id and the child holding it, which must be the current, running one. */
  private resolve(handle: DeviceBuffer, what: string): ProxyBuffer {
    if (handle.backend !== BACKEND_NAME)
      throw new BackendError(
        'UNKNOWN_BUFFER',
        BACKEND_NAME,
        `${what}: buffer ${handle.id} belongs to backend '${handle.backend}'`,
      );
    const record = this.handles.get(handle.id);
    if (record === undefined)
      throw new BackendError('UNKNOWN_BUFFER', BACKEND_NAME, `${what}: buffer ${handle.id} is unknown or was freed`);
    if (record.connection !== this.connection || record.connection.exited) {
      const how = record.connection.exit ?? 'was replaced';
      throw new DeviceLostError(
        BACKEND_NAME,
        `buffer ${handle.id} was in GPU process ${record.connection.pid ?? '?'}, which ${how}; upload it again (during ${what})`,
      );
    }
    return record;
  }

  private adopt(remote: RemoteBuffer, connection: GpuProcessConnection): DeviceBuffer {
    const handle: DeviceBuffer = { backend: BACKEND_NAME, id: this.nextHandle++, byteLength: remote.byteLength };
    this.handles.set(handle.id, { connection, remoteId: remote.id });
    return handle;
  }

  /** The child's prior with the IPC round trip added to each launch and the channel in series with transfers. */
  private withIpc(profile: PerformanceProfile): PerformanceProfile {
    const ipc = this.options.ipcBytesPerMs ?? DEFAULT_IPC_BYTES_PER_MS;
    return {
      ...profile,
      launchMs: profile.launchMs + this.pingMs,
      transferBytesPerMs: 1 / (1 / profile.transferBytesPerMs + 1 / ipc),
    };
  }
}

/** Just the spec of a tensor: callers pass richer objects (the engine's Tensor) that cannot cross IPC. */
function plainSpec(spec: TensorSpec): TensorSpec {
  return { dtype: spec.dtype, shape: [...spec.shape] };
}

export type { ProcessDeviceDescription, ProcessWebGpuOptions } from './process-options.ts';

/** A CapableBackend whose WebGPU device lives in a child Node process (see ProcessWebGpuBackend). */
export function createProcessWebGpuBackend(options: ProcessWebGpuOptions = {}): ProcessWebGpuBackend {
  return new ProcessWebGpuBackend(options);
}
