// Size-bucketed reuse of GPU buffers. Sizes round up to the next of 4 steps per power of two (at most 25%
// waste), so a buffer freed by one op serves the next op of a similar size. Reuse right after release is
// safe: WebGPU orders queue writes and submissions, so work already submitted sees the old contents.

/** What the pool needs of a buffer (GPUBuffer satisfies it). */
export interface PoolableBuffer {
  /** Size in bytes. */
  readonly size: number;
  /** GPUBufferUsage bits. */
  readonly usage: number;
  /** Frees the device memory. */
  destroy(): void;
}

/** Smallest bucket, bytes. */
export const MIN_BUCKET_BYTES = 256;

/** The size a request of `bytes` is served with: the next bucket, or `bytes` rounded to 16 above `cap`. */
export function bucketSize(bytes: number, cap: number = Number.MAX_SAFE_INTEGER): number {
  if (bytes <= MIN_BUCKET_BYTES) return MIN_BUCKET_BYTES;
  const power = 2 ** Math.ceil(Math.log2(bytes));
  const step = power / 8;
  const bucket = Math.ceil(bytes / step) * step;
  return bucket <= cap ? bucket : Math.ceil(bytes / 16) * 16;
}

/** Counters for tests and telemetry. */
export interface PoolStats {
  /** Bytes held in free lists. */
  readonly pooledBytes: number;
  /** Requests served from a free list. */
  readonly hits: number;
  /** Requests that created a buffer. */
  readonly misses: number;
}

/** Free lists of buffers keyed by usage and bucket size, capped in total bytes (oldest evicted first). */
export class BufferPool<T extends PoolableBuffer> {
  private readonly free = new Map<string, T[]>();
  private readonly order: T[] = [];
  private pooled = 0;
  private hitCount = 0;
  private missCount = 0;

  /**
   * @param create makes a new buffer of exactly `size` bytes
   * @param maxPooledBytes most bytes kept for reuse; beyond it released buffers are destroyed
   * @param cap largest buffer the device allows (buckets never exceed it)
   */
  constructor(
    private readonly create: (size: number, usage: number) => T,
    private readonly maxPooledBytes: number,
    private readonly cap: number = Number.MAX_SAFE_INTEGER,
  ) {}

  /** A buffer of at least `bytes` with this usage, reused when one is free. */
  acquire(bytes: number, usage: number): T {
    const size = bucketSize(bytes, this.cap);
    const list = this.free.get(key(size, usage));
    const reused = list?.pop();
    if (reused !== undefined) {
      this.hitCount++;
      this.pooled -= reused.size;
      this.order.splice(this.order.indexOf(reused), 1);
      return reused;
    }
    this.missCount++;
    return this.create(size, usage);
  }

  /** Returns a buffer for reuse (or destroys it when the pool is full or the size is not a bucket). */
  release(buffer: T): void {
    if (buffer.size > this.maxPooledBytes || bucketSize(buffer.size, this.cap) !== buffer.size) {
      buffer.destroy();
      return;
    }
    const k = key(buffer.size, buffer.usage);
    const list = this.free.get(k) ?? [];
    list.push(buffer);
    this.free.set(k, list);
    this.order.push(buffer);
    this.pooled += buffer.size;
    while (this.pooled > this.maxPooledBytes) this.evictOldest();
  }

  /** Destroys every pooled buffer. */
  clear(): void {
    for (const buffer of this.order) buffer.destroy();
    this.free.clear();
    this.order.length = 0;
    this.pooled = 0;
  }

  /** Forgets every pooled buffer without destroying it (their device is gone). */
  abandon(): void {
    this.free.clear();
    this.order.length = 0;
    this.pooled = 0;
  }

  /** Current counters. */
  stats(): PoolStats {
    return { pooledBytes: this.pooled, hits: this.hitCount, misses: this.missCount };
  }

  private evictOldest(): void {
    const oldest = this.order.shift();
    if (oldest === undefined) return;
    const list = this.free.get(key(oldest.size, oldest.usage));
    list?.splice(list.indexOf(oldest), 1);
    this.pooled -= oldest.size;
    oldest.destroy();
  }
}

function key(size: number, usage: number): string {
  return `${usage}:${size}`;
}
