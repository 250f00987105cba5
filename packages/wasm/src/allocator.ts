// A best-fit free-list allocator over one growable address range (wasm linear memory).
// Blocks are 16-byte aligned (SIMD loads), free blocks are kept sorted by address and merged with their
// neighbours on release, and the range grows on demand through the `grow` callback (memory.grow).

/** Alignment and size granule of every block, bytes. */
export const BLOCK_ALIGN = 16;

/** What the allocator manages: a range [base, end) whose end can be pushed up to a limit. */
export interface GrowableRange {
  /** Current end of the range, bytes. */
  end(): number;
  /** Tries to move the end to at least `bytes`; false when refused (the limit, or the host said no). */
  growTo(bytes: number): boolean;
}

/** Counters for describe() and tests. */
export interface AllocatorStats {
  /** Bytes in live blocks (rounded to BLOCK_ALIGN). */
  readonly usedBytes: number;
  /** Bytes in free blocks inside the range. */
  readonly freeBytes: number;
  /** Live blocks. */
  readonly liveBlocks: number;
  /** Free blocks (1 after everything is freed and merged). */
  readonly freeBlocks: number;
  /** End of the managed range. */
  readonly endBytes: number;
}

interface FreeBlock {
  start: number;
  size: number;
}

/** Rounds up to a multiple of `granule` (a power of two). */
export function roundUp(bytes: number, granule: number): number {
  return Math.ceil(bytes / granule) * granule;
}

/** Best-fit allocator with coalescing over a GrowableRange. */
export class FreeListAllocator {
  private readonly range: GrowableRange;
  private readonly base: number;
  /** Largest end the range may reach. */
  readonly limitBytes: number;
  private readonly free: FreeBlock[] = [];
  private readonly live = new Map<number, number>();
  private end: number;
  private used = 0;

  /** Manages [base, range.end()), growing up to limitBytes; base is rounded up to BLOCK_ALIGN. */
  constructor(range: GrowableRange, base: number, limitBytes: number) {
    this.range = range;
    this.base = roundUp(base, BLOCK_ALIGN);
    this.limitBytes = limitBytes;
    this.end = Math.max(this.base, range.end());
    if (this.end > this.base) this.free.push({ start: this.base, size: this.end - this.base });
  }

  /** A 16-aligned block of at least `bytes` (0 allowed), or undefined when the range cannot hold it. */
  allocate(bytes: number): number | undefined {
    const size = Math.max(BLOCK_ALIGN, roundUp(bytes, BLOCK_ALIGN));
    let index = this.bestFit(size);
    if (index < 0) {
      if (!this.grow(size)) return undefined;
      index = this.bestFit(size);
      if (index < 0) return undefined;
    }
    const block = this.free[index];
    if (block === undefined) return undefined;
    const start = block.start;
    if (block.size === size) this.free.splice(index, 1);
    else {
      block.start += size;
      block.size -= size;
    }
    this.live.set(start, size);
    this.used += size;
    return start;
  }

  /** Returns a block; unknown or already-freed pointers are ignored. */
  release(pointer: number): void {
    const size = this.live.get(pointer);
    if (size === undefined) return;
    this.live.delete(pointer);
    this.used -= size;
    this.insertFree(pointer, size);
  }

  /** Size of a live block (rounded), or undefined. */
  sizeOf(pointer: number): number | undefined {
    return this.live.get(pointer);
  }

  /** Forgets every block: the whole range is free again. */
  reset(): void {
    this.live.clear();
    this.used = 0;
    this.free.length = 0;
    if (this.end > this.base) this.free.push({ start: this.base, size: this.end - this.base });
  }

  /** Current counters. */
  /** Bytes in live blocks (O(1), unlike stats()). */
  get usedBytes(): number {
    return this.used;
  }

  stats(): AllocatorStats {
    return {
      usedBytes: this.used,
      freeBytes: this.free.reduce((sum, b) => sum + b.size, 0),
      liveBlocks: this.live.size,
      freeBlocks: this.free.length,
      endBytes: this.end,
    };
  }

  /** Index of the smallest free block that fits, or -1. */
  private bestFit(size: number): number {
    let best = -1;
    let bestSize = Infinity;
    for (let i = 0; i < this.free.length; i++) {
      const s = this.free[i]?.size ?? 0;
      if (s >= size && s < bestSize) {
        best = i;
        bestSize = s;
        if (s === size) break;
      }
    }
    return best;
  }

  /** Extends the range so a block of `size` fits at its end: by at least 1/8 of the range, or exactly, if that is all the host allows. */
  private grow(size: number): boolean {
    const last = this.free[this.free.length - 1];
    const tail = last !== undefined && last.start + last.size === this.end ? last.size : 0;
    const needed = this.end + size - tail;
    if (needed > this.limitBytes) return false;
    const generous = Math.min(this.limitBytes, Math.max(needed, this.end + Math.floor(this.end / 8)));
    const grown = this.range.growTo(generous) || (generous > needed && this.range.growTo(needed));
    if (!grown) return false;
    const newEnd = Math.min(this.limitBytes, this.range.end());
    if (newEnd <= this.end) return false;
    this.insertFree(this.end, newEnd - this.end);
    this.end = newEnd;
    return true;
  }

  /** Adds [start, start + size) to the sorted free list, merging with touching neighbours. */
  private insertFree(start: number, size: number): void {
    let lo = 0;
    let hi = this.free.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.free[mid]?.start ?? 0) < start) lo = mid + 1;
      else hi = mid;
    }
    const before = this.free[lo - 1];
    const after = this.free[lo];
    const joinsBefore = before !== undefined && before.start + before.size === start;
    const joinsAfter = after !== undefined && start + size === after.start;
    if (joinsBefore && joinsAfter) {
      before.size += size + after.size;
      this.free.splice(lo, 1);
    } else if (joinsBefore) {
      before.size += size;
    } else if (joinsAfter) {
      after.start = start;
      after.size += size;
    } else {
      this.free.splice(lo, 0, { start, size });
    }
  }
}
