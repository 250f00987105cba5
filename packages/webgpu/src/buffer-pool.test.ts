// The buffer pool without a GPU: bucket sizes, reuse by usage and size, the byte cap and eviction order.
import { describe, expect, it } from 'vitest';
import { BufferPool, bucketSize, MIN_BUCKET_BYTES, type PoolableBuffer } from './buffer-pool.ts';

class FakeBuffer implements PoolableBuffer {
  destroyed = false;
  constructor(
    readonly size: number,
    readonly usage: number,
  ) {}
  destroy(): void {
    this.destroyed = true;
  }
}

describe('bucketSize', () => {
  it('rounds up to 4 steps per power of two, at least the minimum, at most 25% waste', () => {
    expect(bucketSize(0)).toBe(MIN_BUCKET_BYTES);
    expect(bucketSize(1)).toBe(MIN_BUCKET_BYTES);
    expect(bucketSize(257)).toBe(320);
    expect(bucketSize(1000)).toBe(1024);
    expect(bucketSize(1025)).toBe(1280);
    for (let bytes = 1; bytes < 1e7; bytes = Math.ceil(bytes * 1.37)) {
      const b = bucketSize(bytes);
      expect(b).toBeGreaterThanOrEqual(bytes);
      expect(b % 16).toBe(0);
      expect(bucketSize(b)).toBe(b);
      if (bytes > MIN_BUCKET_BYTES) expect(b / bytes).toBeLessThanOrEqual(1.25 + 1e-9);
    }
  });

  it('never exceeds the cap: above it sizes round to 16 bytes', () => {
    expect(bucketSize(1000, 1000)).toBe(1008);
    expect(bucketSize(900, 1000)).toBe(912);
  });
});

describe('BufferPool', () => {
  const make = (): { pool: BufferPool<FakeBuffer>; created: FakeBuffer[] } => {
    const created: FakeBuffer[] = [];
    const pool = new BufferPool((size, usage) => {
      const b = new FakeBuffer(size, usage);
      created.push(b);
      return b;
    }, 4096);
    return { pool, created };
  };

  it('reuses a released buffer of the same bucket and usage only', () => {
    const { pool, created } = make();
    const a = pool.acquire(1000, 1);
    pool.release(a);
    expect(pool.acquire(900, 2)).not.toBe(a);
    expect(pool.acquire(2000, 1)).not.toBe(a);
    expect(pool.acquire(1000, 1)).toBe(a);
    expect(created.length).toBe(3);
    expect(pool.stats()).toMatchObject({ hits: 1, misses: 3, pooledBytes: 0 });
  });

  it('destroys the oldest pooled buffers beyond the byte cap', () => {
    const { pool } = make();
    const buffers = [pool.acquire(2048, 1), pool.acquire(1024, 1), pool.acquire(2048, 1)];
    for (const b of buffers) pool.release(b);
    expect(buffers.map((b) => b.destroyed)).toEqual([true, false, false]);
    expect(pool.stats().pooledBytes).toBe(3072);
    pool.clear();
    expect(buffers.every((b) => b.destroyed)).toBe(true);
    expect(pool.stats().pooledBytes).toBe(0);
  });

  it('destroys buffers that are not bucket-sized or larger than the cap instead of pooling them', () => {
    const { pool } = make();
    const odd = new FakeBuffer(1000, 1);
    const huge = new FakeBuffer(8192, 1);
    pool.release(odd);
    pool.release(huge);
    expect(odd.destroyed && huge.destroyed).toBe(true);
  });
});
