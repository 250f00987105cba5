import { describe, expect, it } from 'vitest';
import { BLOCK_ALIGN, FreeListAllocator, type GrowableRange } from './allocator.ts';

/** A range that grows in 64 KiB pages up to `limit`, counting grow calls; `refuse` makes it say no. */
function fakeRange(initial: number, limit: number): GrowableRange & { grows: number; refuse: boolean } {
  let end = initial;
  return {
    grows: 0,
    refuse: false,
    end: () => end,
    growTo(bytes: number): boolean {
      if (this.refuse || bytes > limit) return false;
      this.grows++;
      end = Math.max(end, Math.ceil(bytes / 65536) * 65536);
      return true;
    },
  };
}

/** Whether any two live blocks [at, at + max(size, 1)) overlap. */
function overlaps(live: Map<number, number>): boolean {
  const spans = [...live].map(([at, size]) => [at, at + Math.max(size, 1)] as const).sort((a, b) => a[0] - b[0]);
  return spans.some((span, i) => i > 0 && span[0] < (spans[i - 1]?.[1] ?? 0));
}

describe('FreeListAllocator', () => {
  it('hands out 16-byte aligned, non-overlapping blocks above the base', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 20), 1000, 1 << 20);
    const blocks = [1, 15, 16, 17, 100, 0, 4096].map((n) => ({ n, at: alloc.allocate(n) ?? -1 }));
    for (const b of blocks) {
      expect(b.at % BLOCK_ALIGN).toBe(0);
      expect(b.at).toBeGreaterThanOrEqual(1008);
    }
    const spans = blocks
      .map((b) => [b.at, b.at + Math.max(16, Math.ceil(b.n / 16) * 16)] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]?.[0]).toBeGreaterThanOrEqual(spans[i - 1]?.[1] ?? 0);
  });

  it('reuses a freed block for a request of the same size', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 20), 0, 1 << 20);
    const a = alloc.allocate(256);
    alloc.allocate(256);
    alloc.release(a ?? -1);
    expect(alloc.allocate(256)).toBe(a);
  });

  it('picks the best-fitting free block', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 20), 0, 1 << 20);
    const big = alloc.allocate(1024) ?? -1;
    alloc.allocate(16);
    const small = alloc.allocate(64) ?? -1;
    alloc.allocate(16);
    alloc.release(big);
    alloc.release(small);
    expect(alloc.allocate(48)).toBe(small);
  });

  it('coalesces neighbours on release: freeing everything leaves one free block', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 20), 0, 1 << 20);
    const ptrs = Array.from({ length: 20 }, (_, i) => alloc.allocate(16 * (i + 1)) ?? -1);
    // Free in an interleaved order so merges happen before, after and on both sides.
    for (const i of [1, 3, 5, 0, 2, 4, 19, 17, 18, 6, 8, 7, 9, 10, 12, 11, 14, 13, 16, 15])
      alloc.release(ptrs[i] ?? -1);
    const stats = alloc.stats();
    expect(stats.freeBlocks).toBe(1);
    expect(stats.usedBytes).toBe(0);
    expect(stats.freeBytes).toBe(stats.endBytes);
    // The merged block serves a request as large as the whole range.
    expect(alloc.allocate(stats.endBytes)).toBe(0);
  });

  it('ignores double frees and unknown pointers', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 20), 0, 1 << 20);
    const a = alloc.allocate(64) ?? -1;
    alloc.release(a);
    alloc.release(a);
    alloc.release(12345);
    expect(alloc.stats().freeBlocks).toBe(1);
    expect(alloc.stats().usedBytes).toBe(0);
  });

  it('grows the range on demand, extending a free tail instead of leaving a gap', () => {
    const range = fakeRange(65536, 1 << 24);
    const alloc = new FreeListAllocator(range, 0, 1 << 24);
    alloc.allocate(60000);
    const big = alloc.allocate(200_000) ?? -1;
    expect(range.grows).toBe(1);
    expect(big).toBe(60000); // the free tail [60000, 65536) was extended, not skipped
    expect(alloc.stats().endBytes).toBeGreaterThanOrEqual(big + 200_000);
  });

  it('returns undefined past the limit or when the range refuses to grow', () => {
    const range = fakeRange(65536, 1 << 20);
    const alloc = new FreeListAllocator(range, 0, 1 << 20);
    expect(alloc.allocate((1 << 20) + 16)).toBeUndefined();
    range.refuse = true;
    expect(alloc.allocate(100_000)).toBeUndefined();
    range.refuse = false;
    expect(alloc.allocate(100_000)).toBeDefined();
  });

  it('survives a random workload with its invariants intact', () => {
    const alloc = new FreeListAllocator(fakeRange(65536, 1 << 26), 64, 1 << 26);
    const live = new Map<number, number>();
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let step = 0; step < 5000; step++) {
      if (live.size > 0 && rand() < 0.45) {
        const keys = [...live.keys()];
        const at = keys[Math.floor(rand() * keys.length)] ?? -1;
        alloc.release(at);
        live.delete(at);
      } else {
        const size = Math.floor(rand() ** 3 * 50_000);
        const at = alloc.allocate(size);
        expect(at).toBeDefined();
        if (at === undefined) return;
        live.set(at, size);
      }
      if (step % 100 === 0) expect(overlaps(live)).toBe(false);
    }
    for (const p of live.keys()) alloc.release(p);
    expect(alloc.stats().freeBlocks).toBe(1);
  });
});
