// WebGpuBackend: Tandem's CapableBackend over WebGPU, for browsers (navigator.gpu) and Node (dawn.node via
// ./node-gpu.ts). Tensors stay on the device between ops; every failure becomes a BackendError subclass so
// the engine can fall back; a lost device is replaced on the next init(), upload() or run().
import {
  BackendError,
  errorMessage,
  InvalidArgumentError,
  OutOfMemoryError,
  mapOpTensors,
  type BackendHealth,
  type BackendSequence,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type RecordedSequence,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import { acquireContext } from './acquire.ts';
import { BufferRegistry } from './buffer-registry.ts';
import { WEBGPU_CAPABILITIES } from './capabilities.ts';
import { DEFAULT_LIMITS, type DeviceContext } from './device-context.ts';
import { storageByteLength, fromDeviceBytes, hostByteLength, toDeviceBytes } from './device-layout.ts';
import { MAP_READ_MODE, READBACK_USAGE, TENSOR_USAGE } from './gpu-constants.ts';
import { BACKEND_NAME, deviceLost } from './gpu-errors.ts';
import { guarded } from './guarded.ts';
import { executeOp } from './execute-op.ts';
import { executeSequence, executeSequenceByStep } from './execute-sequence.ts';
import type { DeviceTensor } from './plan.ts';
import { performanceProfile } from './profile.ts';
import { checkWebGpuSupport } from './support.ts';
import { directWaiter, type GpuWaiter } from './waiter.ts';

/** Largest single queue.writeBuffer of an upload (a multiple of 4). */
const UPLOAD_PIECE_BYTES = 64 * 2 ** 20;

/** Where the backend gets WebGPU: a GPU object, or a function producing one lazily (may fail or give none). */
export type GpuSource = GPU | (() => GPU | undefined | Promise<GPU | undefined>);

/** Construction options. */
export interface WebGpuBackendOptions {
  /** navigator.gpu in browsers; in Node, `nodeGpu` from '@tandem/webgpu/node'. */
  readonly gpu: GpuSource;
  /** How GPU promises are awaited (default: directly; Node passes the throttled waiter). */
  readonly waiter?: GpuWaiter;
  /** Adapter preference (default 'high-performance'). */
  readonly powerPreference?: GPUPowerPreference;
  /** Scheduling priority (default 20). */
  readonly priority?: number;
  /** Most bytes of freed buffers kept for reuse per device (default 256 MiB); larger buffers are destroyed. */
  readonly maxPooledBytes?: number;
}

/** describe() of the WebGPU backend: the core description plus the limits the planner uses. */
export interface WebGpuDeviceDescription extends DeviceDescription {
  /** Largest storage binding, bytes (ops needing more are refused). */
  readonly maxStorageBufferBindingSize: number;
  /** Largest buffer, bytes. */
  readonly maxBufferSize: number;
  /** Whether the adapter is a software rasterizer (SwiftShader, lavapipe). */
  readonly software: boolean;
}

/** Tandem's WebGPU backend. */
export class WebGpuBackend implements CapableBackend {
  /** Backend name in telemetry and errors. */
  readonly name = BACKEND_NAME;
  /** An offload target. */
  readonly kind = 'gpu' as const;
  /** The first run of an op creates its pipelines (shader compilation in the driver). */
  readonly compilesOnFirstRun = true;
  /** Tie-break and fallback order, lower first (20 unless given). */
  readonly priority: number;
  /** Ops and dtypes implemented. */
  readonly capabilities: readonly Capability[] = WEBGPU_CAPABILITIES;

  private readonly waiter: GpuWaiter;
  private readonly powerPreference: GPUPowerPreference;
  private readonly maxPooledBytes: number | undefined;
  private readonly buffers = new BufferRegistry();
  private gpu: GpuSource | undefined;
  private context: DeviceContext | undefined;
  private acquiring: Promise<InitResult> | undefined;
  private initFailure: string | undefined;
  private disposed = false;

  constructor(options: WebGpuBackendOptions) {
    this.gpu = options.gpu;
    this.waiter = options.waiter ?? directWaiter;
    this.powerPreference = options.powerPreference ?? 'high-performance';
    this.priority = options.priority ?? 20;
    this.maxPooledBytes = options.maxPooledBytes;
  }

  /** Acquires an adapter and device (again, after a loss); resolves { ok: false, reason } instead of throwing. */
  init(): Promise<InitResult> {
    if (this.disposed) return Promise.resolve({ ok: false, reason: 'the backend was disposed' });
    if (this.context !== undefined && this.context.lostReason === undefined) return Promise.resolve({ ok: true });
    this.acquiring ??= this.acquire().finally(() => {
      this.acquiring = undefined;
    });
    return this.acquiring;
  }

  /** The adapter, its limits and features, and a roofline prior (placeholders before init()). */
  describe(): WebGpuDeviceDescription {
    const ctx = this.context;
    if (ctx === undefined) {
      return {
        name: 'WebGPU (no device)',
        features: [],
        maxStorageBufferBindingSize: DEFAULT_LIMITS.maxStorageBufferBindingSize,
        maxBufferSize: DEFAULT_LIMITS.maxBufferSize,
        software: false,
      };
    }
    return {
      name: ctx.adapter.name,
      features: ctx.features,
      performance: performanceProfile(ctx.adapter),
      maxStorageBufferBindingSize: ctx.limits.maxStorageBufferBindingSize,
      maxBufferSize: ctx.limits.maxBufferSize,
      software: ctx.adapter.software,
    };
  }

  /** Free device memory: WebGPU does not say (answered here so a decision does not build a describe() for it). */
  availableMemory(): number | undefined {
    return undefined;
  }

  /** Capability table, then device limits (binding and buffer sizes, grid sizes, workgroup memory). */
  supportsOp(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
    const ctx = this.context;
    return checkWebGpuSupport(op, ctx?.limits ?? DEFAULT_LIMITS, outputs);
  }

  /** Copies host bytes (in the dtype's layout) into a new device buffer. */
  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    const what = `upload ${spec.dtype}[${spec.shape.join(', ')}]`;
    const expected = hostByteLength(spec);
    if (data.byteLength !== expected)
      throw new InvalidArgumentError(
        'upload.data.byteLength',
        data.byteLength,
        `must be ${expected} for ${spec.dtype}[${spec.shape.join(', ')}]`,
      );
    const ctx = await this.ready(what);
    const bytes = storageByteLength(spec);
    if (bytes > ctx.limits.maxBufferSize)
      throw new OutOfMemoryError(BACKEND_NAME, what, bytes, ctx.limits.maxBufferSize);
    const gpu = await guarded(
      ctx,
      { what, requestedBytes: bytes },
      () => {
        const buffer = ctx.pool.acquire(bytes, TENSOR_USAGE);
        if (bytes > 0) {
          const source = toDeviceBytes(data, spec);
          // In pieces: one writeBuffer stages its whole size at once (3 GB for 1M x 768 f32 targets).
          for (let at = 0; at < source.byteLength; at += UPLOAD_PIECE_BYTES) {
            const size = Math.min(UPLOAD_PIECE_BYTES, source.byteLength - at);
            ctx.device.queue.writeBuffer(buffer, at, source.buffer, source.byteOffset + at, size);
          }
        }
        return buffer;
      },
      () => undefined,
      (buffer) => buffer?.destroy(),
    );
    return this.buffers.add(gpu, spec, expected, ctx);
  }

  /** Copies a buffer back to the host, in its dtype's layout. */
  async download(handle: DeviceBuffer): Promise<Uint8Array> {
    const record = this.buffers.lookup(handle, 'download');
    const ctx = record.context;
    if (ctx.lostReason !== undefined) throw deviceLost('download', ctx.lostReason);
    const bytes = storageByteLength(record.spec);
    if (bytes === 0) return new Uint8Array(0);
    const staging = await guarded(
      ctx,
      { what: `download buffer ${handle.id}`, requestedBytes: bytes },
      () => {
        const readback = ctx.pool.acquire(bytes, READBACK_USAGE);
        const encoder = ctx.device.createCommandEncoder({ label: 'download' });
        encoder.copyBufferToBuffer(record.gpu, 0, readback, 0, bytes);
        ctx.device.queue.submit([encoder.finish()]);
        return readback;
      },
      (readback) => readback.mapAsync(MAP_READ_MODE, 0, bytes),
      (readback) => readback?.destroy(),
    );
    const copy = new Uint8Array(staging.getMappedRange(0, bytes).slice(0));
    staging.unmap();
    ctx.pool.release(staging);
    return fromDeviceBytes(copy, record.spec);
  }

  /** Releases a buffer to the pool; unknown handles and buffers of a lost device are ignored. */
  free(handle: DeviceBuffer): void {
    const record = this.buffers.remove(handle);
    if (record === undefined) return;
    if (record.context === this.context && record.context.lostReason === undefined)
      record.context.pool.release(record.gpu);
  }

  /** Runs one op on resident inputs into new pooled outputs; waits for the GPU and reports kernel time. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const ctx = await this.ready(op.op);
    const resolved = mapOpTensors(
      op,
      (t, name): DeviceTensor => ({
        dtype: t.dtype,
        shape: t.shape,
        gpu: this.buffers.resolve(t.buffer, `${op.op}.${name}`, ctx).gpu,
      }),
    );
    const verdict = this.supportsOp(mapOpTensors(op, (t): TensorSpec => ({ dtype: t.dtype, shape: t.shape })));
    if (!verdict.ok) throw new BackendError('UNSUPPORTED', BACKEND_NAME, verdict.reason);

    const executed = await executeOp(ctx, resolved, outputs);
    const handles = executed.outputs.map((t) => this.buffers.add(t.gpu, t, hostByteLength(t), ctx));
    return { outputs: handles, kernelMs: executed.kernelMs };
  }

  /**
   * Prepares a recorded sequence (graph replay): each run encodes every step into one command buffer and submits it
   * once; a run asked for step times runs op by op, each timed (execute-sequence.ts).
   */
  prepareSequence(sequence: RecordedSequence): BackendSequence {
    return {
      run: async (inputs, timeSteps) => {
        const ctx = await this.ready('sequence');
        const resolved = inputs.map((buffer, i): DeviceTensor => {
          const spec = sequence.inputs[i] ?? { dtype: 'f32', shape: [] };
          return { ...spec, gpu: this.buffers.resolve(buffer, `sequence.inputs[${i}]`, ctx).gpu };
        });
        const executed = timeSteps
          ? await executeSequenceByStep(ctx, sequence, resolved)
          : await executeSequence(ctx, sequence, resolved);
        const outputs = executed.outputs.map((t) => this.buffers.add(t.gpu, t, hostByteLength(t), ctx));
        return {
          outputs,
          kernelMs: executed.kernelMs,
          ...(executed.stepMs === undefined ? {} : { stepKernelMs: executed.stepMs }),
        };
      },
    };
  }

  /** 'healthy' with a device; 'unhealthy' after a loss until a new device is acquired; 'unavailable' otherwise. */
  health(): BackendHealth {
    if (this.disposed) return { state: 'unavailable', reason: 'the backend was disposed' };
    const ctx = this.context;
    if (ctx === undefined) return { state: 'unavailable', reason: this.initFailure ?? 'not initialised' };
    if (ctx.lostReason !== undefined) return { state: 'unhealthy', reason: `device lost (${ctx.lostReason})` };
    return { state: 'healthy' };
  }

  /** Destroys every buffer and the device; later calls reject. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.acquiring;
    const ctx = this.context;
    this.context = undefined;
    for (const record of this.buffers.drain()) record.gpu.destroy();
    if (ctx !== undefined) {
      ctx.pool.clear();
      ctx.device.destroy();
    }
    this.gpu = undefined;
  }

  /** The current device, for diagnostics and tests (e.g. destroying it to exercise loss handling). */
  currentDevice(): GPUDevice | undefined {
    return this.context?.device;
  }

  /** Pool counters of the current device, for tests and telemetry. */
  poolStats(): ReturnType<DeviceContext['pool']['stats']> | undefined {
    return this.context?.pool.stats();
  }

  private async acquire(): Promise<InitResult> {
    const gpu = await this.resolveGpu();
    if (typeof gpu === 'string') return this.failInit(gpu);
    const result = await acquireContext({
      gpu,
      waiter: this.waiter,
      powerPreference: this.powerPreference,
      ...(this.maxPooledBytes === undefined ? {} : { maxPooledBytes: this.maxPooledBytes }),
    });
    if (!result.ok) return this.failInit(result.reason);
    if (this.disposed) {
      result.context.device.destroy();
      return { ok: false, reason: 'the backend was disposed' };
    }
    this.context = result.context;
    this.initFailure = undefined;
    return { ok: true };
  }

  private async resolveGpu(): Promise<GPU | string> {
    const source = this.gpu;
    if (source === undefined) return 'the backend was disposed';
    if (typeof source !== 'function') return source;
    try {
      const gpu = await source();
      return gpu ?? 'no WebGPU implementation in this host';
    } catch (error) {
      return `loading WebGPU failed: ${errorMessage(error)}`;
    }
  }

  private failInit(reason: string): InitResult {
    this.initFailure = reason;
    return { ok: false, reason };
  }

  private async ready(what: string): Promise<DeviceContext> {
    if (this.disposed) throw new BackendError('DISPOSED', BACKEND_NAME, `${what}: the backend was disposed`);
    const previous = this.context;
    if (previous !== undefined && previous.lostReason === undefined) return previous;
    const result = await this.init();
    const ctx = this.context;
    if (result.ok && ctx !== undefined) return ctx;
    const reason = result.ok ? 'no device' : result.reason;
    if (previous?.lostReason !== undefined)
      throw deviceLost(what, `${previous.lostReason}; acquiring a new device failed: ${reason}`);
    throw new BackendError('UNAVAILABLE', BACKEND_NAME, `${what}: ${reason}`);
  }
}
