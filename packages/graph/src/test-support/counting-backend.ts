// Test helper: wraps a backend and counts the buffers alive on it (uploads and op outputs minus frees), with the
// peak. Device buffers are the ground truth for "intermediates are freed": the executor's own counters are not.
import type {
  BackendHealth,
  BoundTensor,
  CapableBackend,
  DeviceBuffer,
  DeviceDescription,
  InitResult,
  Op,
  OpWork,
  RunResult,
  SupportVerdict,
  TensorSpec,
} from '@tandem/core';

/** A CapableBackend that forwards everything to `inner` and counts live buffers. */
export class CountingBackend implements CapableBackend {
  readonly name: string;
  readonly kind: CapableBackend['kind'];
  readonly priority: number;
  readonly capabilities: CapableBackend['capabilities'];
  /** Buffers alive now, by id. */
  readonly live = new Set<number>();
  /** Most buffers alive at once since the last resetPeak(). */
  peak = 0;
  /** upload() calls so far. */
  uploads = 0;
  /** download() calls so far. */
  downloads = 0;
  private readonly inner: CapableBackend;

  constructor(inner: CapableBackend) {
    this.inner = inner;
    this.name = inner.name;
    this.kind = inner.kind;
    this.priority = inner.priority;
    this.capabilities = inner.capabilities;
  }

  /** Starts a new peak measurement from the current count. */
  resetPeak(): void {
    this.peak = this.live.size;
  }

  init(): Promise<InitResult> {
    return this.inner.init();
  }
  describe(): DeviceDescription {
    return this.inner.describe();
  }
  supportsOp(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
    return this.inner.supportsOp?.(op, outputs) ?? { ok: true };
  }
  estimateCost(op: Op<TensorSpec>, work: OpWork): number | undefined {
    return this.inner.estimateCost?.(op, work);
  }
  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    this.uploads++;
    return this.track(await this.inner.upload(data, spec));
  }
  download(buffer: DeviceBuffer): Promise<Uint8Array> {
    this.downloads++;
    return this.inner.download(buffer);
  }
  free(buffer: DeviceBuffer): void {
    this.live.delete(buffer.id);
    this.inner.free(buffer);
  }
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const result = await this.inner.run(op, outputs);
    for (const b of result.outputs) this.track(b);
    return result;
  }
  health(): BackendHealth {
    return this.inner.health();
  }
  dispose(): Promise<void> {
    this.live.clear();
    return this.inner.dispose();
  }

  private track(buffer: DeviceBuffer): DeviceBuffer {
    this.live.add(buffer.id);
    this.peak = Math.max(this.peak, this.live.size);
    return buffer;
  }
}
