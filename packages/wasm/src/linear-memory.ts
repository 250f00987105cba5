// The wasm linear memory as the allocator's growable range, with byte views that are re-created after growth:
// memory.grow detaches the old ArrayBuffer (non-shared memory), so a view kept across a grow reads nothing.
import type { GrowableRange } from './allocator.ts';
import type { WasmMemory } from './wasm-api.ts';

/** Bytes in one wasm page. */
export const PAGE_BYTES = 65536;

/** The wasm32 address-space limit: 65536 pages, 4 GiB. */
export const WASM32_LIMIT_BYTES = 65536 * PAGE_BYTES;

/** A WebAssembly.Memory that grows on request up to maxBytes and hands out fresh views. */
export class LinearMemory implements GrowableRange {
  /** The memory the module imports. */
  readonly memory: WasmMemory;
  /** Largest size this memory may reach, bytes (<= its declared maximum). */
  readonly maxBytes: number;
  private view: Uint8Array;

  constructor(memory: WasmMemory, maxBytes: number) {
    this.memory = memory;
    this.maxBytes = maxBytes;
    this.view = new Uint8Array(memory.buffer);
  }

  /** Current size, bytes. */
  end(): number {
    return this.memory.buffer.byteLength;
  }

  /** Grows to at least `bytes` (whole pages); false past maxBytes or when the host refuses. */
  growTo(bytes: number): boolean {
    const current = this.end();
    if (bytes <= current) return true;
    if (bytes > this.maxBytes) return false;
    try {
      this.memory.grow(Math.ceil((bytes - current) / PAGE_BYTES));
      return true;
    } catch (error) {
      if (error instanceof RangeError) return false;
      throw error;
    }
  }

  /** A byte view of the whole memory, valid until the next growth (get a new one after any allocation). */
  bytes(): Uint8Array {
    const buffer = this.memory.buffer;
    if (this.view.buffer !== buffer || this.view.byteLength !== buffer.byteLength) this.view = new Uint8Array(buffer);
    return this.view;
  }
}
