// One acquired WebGPU device and everything tied to it: pools, pipelines, loss and uncaptured errors.
// A lost device is never reused; the backend acquires a new context.
import { BufferPool } from './buffer-pool.ts';
import { PipelineCache } from './pipeline-cache.ts';
import type { GpuWaiter } from './waiter.ts';

/** Device limits the backend plans with. */
export interface DeviceLimits {
  /** Largest storage buffer binding, bytes. */
  readonly maxStorageBufferBindingSize: number;
  /** Largest buffer, bytes. */
  readonly maxBufferSize: number;
  /** Largest workgroup count per dispatch dimension. */
  readonly maxComputeWorkgroupsPerDimension: number;
  /** Workgroup memory, bytes. */
  readonly maxComputeWorkgroupStorageSize: number;
  /** Invocations per workgroup. */
  readonly maxComputeInvocationsPerWorkgroup: number;
  /** Storage buffers one shader stage may bind. */
  readonly maxStorageBuffersPerShaderStage: number;
}

/** WebGPU's guaranteed limits: used before a device exists. */
export const DEFAULT_LIMITS: DeviceLimits = {
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
  maxBufferSize: 256 * 1024 * 1024,
  maxComputeWorkgroupsPerDimension: 65535,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxStorageBuffersPerShaderStage: 8,
};

/** What the adapter says it is. */
export interface AdapterSummary {
  /** Human-readable name built from vendor, architecture, device and description. */
  readonly name: string;
  /** Whether it is a software/fallback adapter (SwiftShader, lavapipe, WARP). */
  readonly software: boolean;
}

/** Default of the most bytes a context keeps in its buffer pools (WebGPU cannot report free memory). */
export const DEFAULT_MAX_POOLED_BYTES = 256 * 1024 * 1024;

/** A live device with its caches; `lostReason` is set once the device is gone. */
export class DeviceContext {
  /** Pooled tensor, uniform and readback buffers. */
  readonly pool: BufferPool<GPUBuffer>;
  /** Compiled pipelines. */
  readonly pipelines: PipelineCache;
  /** Resolves with the loss reason once the device is lost. */
  readonly lost: Promise<string>;
  /** Why the device was lost, once it is. */
  lostReason: string | undefined;
  /** Uncaptured errors since the last check. */
  private readonly uncaptured: GPUError[] = [];

  constructor(
    /** The device. */
    readonly device: GPUDevice,
    /** Limits granted to the device. */
    readonly limits: DeviceLimits,
    /** Enabled features that matter to the backend. */
    readonly features: readonly string[],
    /** The adapter it came from. */
    readonly adapter: AdapterSummary,
    /** Waits on the device's promises. */
    readonly waiter: GpuWaiter,
    /** Most bytes kept in the buffer pools. */
    maxPooledBytes: number = DEFAULT_MAX_POOLED_BYTES,
  ) {
    this.pool = new BufferPool(
      (size, usage) => device.createBuffer({ size, usage }),
      maxPooledBytes,
      limits.maxStorageBufferBindingSize,
    );
    this.pipelines = new PipelineCache(device);
    this.lost = device.lost.then((info) => {
      const reason = `${info.reason}: ${info.message}`;
      this.lostReason = reason;
      this.pool.abandon();
      return reason;
    });
    device.onuncapturederror = (event) => {
      this.uncaptured.push(event.error);
    };
  }

  /** Whether 'timestamp-query' is enabled. */
  get timestamps(): boolean {
    return this.features.includes('timestamp-query');
  }

  /** Takes the uncaptured errors reported since the last call. */
  takeUncapturedErrors(): GPUError[] {
    return this.uncaptured.splice(0);
  }
}
