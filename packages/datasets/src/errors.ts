import { TandemError } from '@tandem/core';

/** Missing or corrupt data: names the file (and line, when there is one) and what is wrong. */
export class DatasetError extends TandemError {
  override readonly name: string = 'DatasetError';
  /** The file (or folder) the problem is in. */
  readonly file: string;
  /** 1-based line number in `file`, when the problem is on one line. */
  readonly line: number | undefined;
  constructor(file: string, problem: string, options?: { line?: number; cause?: unknown }) {
    const where = options?.line === undefined ? file : `${file}:${options.line}`;
    super('DATASET', `${where}: ${problem}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = file;
    this.line = options?.line;
  }
}
