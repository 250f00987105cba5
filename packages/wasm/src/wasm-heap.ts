// The backend's memory: device buffers, scratch blocks and cached derived data, all in one wasm linear memory
// managed by the free-list allocator. DeviceBuffer ids map to (pointer, byteLength); nothing moves, so kernels get
// plain pointers and resident tensors are never copied per call.
import {
  BackendError,
  byteLengthOf,
  numel,
  OutOfMemoryError,
  type BoundTensor,
  type DeviceBuffer,
  type TensorSpec,
} from '@tandem/core';
import { FreeListAllocator, type AllocatorStats } from './allocator.ts';
import type { LinearMemory } from './linear-memory.ts';
import type { DerivedBlock } from './run-context.ts';

/** Where a buffer lives in linear memory. */
interface Allocation {
  readonly pointer: number;
  readonly byteLength: number;
}

/** Data derived from a buffer and kept with it (see RunContext.derived). */
interface Derived {
  readonly tag: string;
  readonly pointer: number;
  ready: boolean;
}

/** `f32 [2, 3]`: how errors name a tensor. */
export function describeSpec(spec: TensorSpec): string {
  return `${spec.dtype} [${spec.shape.join(', ')}]`;
}

/** Buffers, scratch and derived blocks over one linear memory. */
export class WasmHeap {
  private readonly backend: string;
  private readonly memory: LinearMemory;
  private readonly allocator: FreeListAllocator;
  private readonly buffers = new Map<number, Allocation>();
  private readonly derivedBlocks = new Map<number, Derived>();
  private nextId = 1;

  /** Manages `memory` above `base` (the module's static data) for the backend named `backend`. */
  constructor(backend: string, memory: LinearMemory, base: number) {
    this.backend = backend;
    this.memory = memory;
    this.allocator = new FreeListAllocator(memory, base, memory.maxBytes);
  }

  /** Largest size the memory may reach, bytes. */
  get limitBytes(): number {
    return this.memory.maxBytes;
  }

  /** Allocator counters. */
  stats(): AllocatorStats {
    return this.allocator.stats();
  }

  /** Bytes still allocatable before the limit (O(1)). */
  availableBytes(): number {
    return this.limitBytes - this.allocator.usedBytes;
  }

  /** A new buffer of `bytes`; throws OutOfMemoryError naming `what` and the limit. */
  allocateBuffer(bytes: number, what: string): DeviceBuffer {
    const pointer = this.allocateBlock(bytes, what);
    const id = this.nextId++;
    this.buffers.set(id, { pointer, byteLength: bytes });
    return { backend: this.backend, id, byteLength: bytes };
  }

  /** A 16-aligned block that is not a buffer (scratch, control slots); release it with releaseBlock. */
  allocateBlock(bytes: number, what: string): number {
    const pointer = this.allocator.allocate(bytes);
    if (pointer === undefined) throw this.outOfMemory(what, bytes);
    return pointer;
  }

  /** Returns a block from allocateBlock. */
  releaseBlock(pointer: number): void {
    this.allocator.release(pointer);
  }

  /** Copies bytes into a buffer. */
  write(buffer: DeviceBuffer, data: Uint8Array): void {
    this.memory.bytes().set(data, this.allocation(buffer).pointer);
  }

  /** Copies a buffer's bytes out. */
  read(buffer: DeviceBuffer): Uint8Array {
    const { pointer, byteLength } = this.allocation(buffer);
    return this.memory.bytes().slice(pointer, pointer + byteLength);
  }

  /** Frees a buffer and whatever was derived from it; unknown or foreign buffers are ignored. */
  free(buffer: DeviceBuffer): void {
    if (buffer.backend !== this.backend) return;
    const allocation = this.buffers.get(buffer.id);
    if (allocation === undefined) return;
    this.buffers.delete(buffer.id);
    this.allocator.release(allocation.pointer);
    this.dropDerived(buffer.id);
  }

  /** A live buffer's pointer; throws for a buffer this backend does not hold. */
  pointerOf(buffer: DeviceBuffer): number {
    return this.allocation(buffer).pointer;
  }

  /** An input's pointer, after checking its block holds the whole tensor (kernels trust shapes). */
  inputPointer(op: string, tensor: BoundTensor): number {
    const allocation = this.allocation(tensor.buffer);
    const needed = byteLengthOf(tensor.dtype, numel(tensor.shape));
    if (allocation.byteLength < needed) {
      throw new BackendError(
        'BUFFER_MISMATCH',
        this.backend,
        `${op}: a ${describeSpec(tensor)} input needs ${needed} bytes; its buffer has ${allocation.byteLength}`,
      );
    }
    return allocation.pointer;
  }

  /** The derived block of an input buffer for `tag`, (re)allocated when missing or made for another tag; undefined when memory is short. */
  derived(tensor: BoundTensor, tag: string, bytes: number): DerivedBlock | undefined {
    const id = tensor.buffer.id;
    this.allocation(tensor.buffer);
    const existing = this.derivedBlocks.get(id);
    if (existing !== undefined && existing.tag === tag) return existing;
    this.dropDerived(id);
    const pointer = this.allocator.allocate(bytes);
    if (pointer === undefined) return undefined;
    const block: Derived = { tag, pointer, ready: false };
    this.derivedBlocks.set(id, block);
    return block;
  }

  /** Marks derived blocks filled (their run succeeded) or drops them (it failed). */
  settleDerived(blocks: readonly DerivedBlock[], succeeded: boolean): void {
    for (const [id, block] of this.derivedBlocks) {
      if (!blocks.includes(block)) continue;
      if (succeeded) block.ready = true;
      else this.dropDerived(id);
    }
  }

  /** An OutOfMemoryError for `what`, with the limit and what is in use. */
  outOfMemory(what: string, bytes: number): OutOfMemoryError {
    const inUse = ` (${this.allocator.stats().usedBytes} bytes in use; past the wasm32 linear memory limit, or memory.grow refused)`;
    return new OutOfMemoryError(this.backend, `${what}${inUse}`, bytes, this.memory.maxBytes);
  }

  private allocation(buffer: DeviceBuffer): Allocation {
    const allocation = buffer.backend === this.backend ? this.buffers.get(buffer.id) : undefined;
    if (allocation === undefined)
      throw new BackendError(
        'UNKNOWN_BUFFER',
        this.backend,
        `buffer ${buffer.backend}#${buffer.id} is not live on this backend`,
      );
    return allocation;
  }

  private dropDerived(id: number): void {
    const block = this.derivedBlocks.get(id);
    if (block === undefined) return;
    this.derivedBlocks.delete(id);
    this.allocator.release(block.pointer);
  }
}
