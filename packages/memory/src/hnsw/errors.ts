import { TandemError } from '@tandem/core';

/** A saved HNSW index that cannot be loaded: names what is wrong (magic, version, truncation, checksum, links). */
export class HnswFormatError extends TandemError {
  override readonly name: string = 'HnswFormatError';
  /** Byte offset the problem was found at, when it is about one place in the file. */
  readonly offset: number | undefined;
  constructor(problem: string, offset?: number) {
    super(
      'HNSW_FORMAT',
      offset === undefined
        ? `invalid HNSW index: ${problem}`
        : `invalid HNSW index at byte offset ${offset}: ${problem}`,
    );
    this.offset = offset;
  }
}

/**
 * A graph-only index (saved without its vectors) loaded with vectors other than the ones it was built on: a
 * different count or dimension, or unit vectors whose CRC-32 differs from the one recorded in the file.
 */
export class HnswVectorsMismatchError extends TandemError {
  override readonly name: string = 'HnswVectorsMismatchError';
  constructor(problem: string) {
    super('HNSW_VECTORS_MISMATCH', `the vectors given are not the ones this HNSW index was built on: ${problem}`);
  }
}

/**
 * An HNSW graph that does not fit the wasm32 memory its search runs in (4 GiB at most; a browser may grant less),
 * or a host whose WebAssembly cannot run the graph kernels (no SIMD128).
 */
export class HnswCapacityError extends TandemError {
  override readonly name: string = 'HnswCapacityError';
  /** Bytes the graph needs (0 when the kernels could not start at all). */
  readonly neededBytes: number;
  /** Bytes the memory may grow to. */
  readonly limitBytes: number;
  constructor(problem: string, neededBytes: number, limitBytes: number) {
    super('HNSW_CAPACITY', problem);
    this.neededBytes = neededBytes;
    this.limitBytes = limitBytes;
  }
}
