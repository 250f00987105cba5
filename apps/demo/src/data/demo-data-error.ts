import { TandemError } from '@tandem/core';

/** Prepared demo data that is missing or corrupt: names the file and what is wrong. */
export class DemoDataError extends TandemError {
  override readonly name: string = 'DemoDataError';
  /** The data file concerned (relative to data/). */
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super('DEMO_DATA', `data/${file}: ${problem}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = file;
  }
}
