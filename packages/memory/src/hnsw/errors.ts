import { TandemError } from '@tandem/core';

/** A saved HNSW index that cannot be loaded: names what is wrong (magic, version, truncation, checksum, links). */
export class HnswFormatError extends TandemError {
  /** Byte offset the problem was found at, when it is about one place in the file. */
  readonly offset: number | undefined;
  constructor(problem: string, offset?: number) {
    super('HNSW_FORMAT', offset === undefined ? `invalid HNSW index: ${problem}` : `invalid HNSW index at byte offset ${offset}: ${problem}`);
    this.offset = offset;
  }
}
