// What an op runner gets from the backend: the kernels, where each input lives, and temporary memory.
import type { BoundTensor } from '@tandem/core';
import type { KernelCall, Kernels } from './kernel-exports.ts';

/** The backend's side of one run() call. */
export interface RunContext {
  /** The instance's kernels. */
  readonly kernels: Kernels;
  /** Threads one op may use: 1 without a worker pool. */
  readonly threads: number;
  /** Runs up to `threads` kernel calls concurrently (the first on this thread); resolves when all are done. */
  parallel(calls: readonly KernelCall[]): Promise<void>;
  /** Byte offset in linear memory of a bound input's data. */
  pointer(tensor: BoundTensor): number;
  /** A temporary 16-aligned block, released when run() returns; `what` names it in an OutOfMemoryError. */
  scratch(bytes: number, what: string): number;
  /**
   * A block kept with an input's buffer for data derived from it (cosine target norms), freed with the buffer.
   * `ready` is false when it was just created (or `tag` changed): the kernel fills it, and it becomes ready only if
   * run() succeeds. Undefined when memory is short: compute without caching.
   */
  derived(tensor: BoundTensor, tag: string, bytes: number): DerivedBlock | undefined;
}

/** A derived block: where it is and whether it already holds valid data. */
export interface DerivedBlock {
  /** Byte offset in linear memory. */
  readonly pointer: number;
  /** True when an earlier successful run filled it. */
  ready: boolean;
}
