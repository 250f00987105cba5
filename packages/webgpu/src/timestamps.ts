// Kernel time from 'timestamp-query': the first compute pass writes a timestamp when it begins, the last one
// when it ends; both are resolved into a buffer and copied to a MAP_READ buffer read after completion.
import { BufferUsage, READBACK_USAGE } from './gpu-constants.ts';
import type { DeviceContext } from './device-context.ts';

/** The query set and buffers of one timed submission. */
export class TimestampPair {
  private readonly querySet: GPUQuerySet;
  private readonly resolved: GPUBuffer;
  /** Mapped after completion to read the two timestamps. */
  readonly readback: GPUBuffer;

  constructor(private readonly ctx: DeviceContext) {
    this.querySet = ctx.device.createQuerySet({ type: 'timestamp', count: 2 });
    this.resolved = ctx.pool.acquire(16, BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC);
    this.readback = ctx.pool.acquire(16, READBACK_USAGE);
  }

  /** timestampWrites for a compute pass that is the first and/or the last one timed. */
  writes(first: boolean, last: boolean): GPUComputePassTimestampWrites | undefined {
    if (!first && !last) return undefined;
    return {
      querySet: this.querySet,
      ...(first ? { beginningOfPassWriteIndex: 0 } : {}),
      ...(last ? { endOfPassWriteIndex: 1 } : {}),
    };
  }

  /** Resolves the queries and copies them to the readback buffer (after the last pass). */
  resolve(encoder: GPUCommandEncoder): void {
    encoder.resolveQuerySet(this.querySet, 0, 2, this.resolved, 0);
    encoder.copyBufferToBuffer(this.resolved, 0, this.readback, 0, 16);
  }

  /** Milliseconds between the two timestamps once readback is mapped; undefined when they make no sense. */
  readMs(): number | undefined {
    const [start = 0n, end = 0n] = new BigUint64Array(this.readback.getMappedRange(0, 16).slice(0));
    this.readback.unmap();
    if (start === 0n || end <= start) return undefined;
    return Number(end - start) / 1e6;
  }

  /** Returns the buffers to the pool (after readMs) and frees the query set. */
  release(): void {
    this.querySet.destroy();
    this.ctx.pool.release(this.resolved);
    this.ctx.pool.release(this.readback);
  }

  /** Frees everything after a failure (the readback buffer may be left mapped or invalid). */
  discard(): void {
    this.querySet.destroy();
    this.resolved.destroy();
    this.readback.destroy();
  }
}
