// Errors of the batch engine.
import { errorMessage, TandemError } from '@tandem/core';

/** A batch's search failed: every caller of that batch (and only them) gets this, with the failure as `cause`. */
export class BatchSearchError extends TandemError {
  override readonly name: string = 'BatchSearchError';
  /** Queries in the failed batch. */
  readonly batchSize: number;
  constructor(batchSize: number, cause: unknown) {
    super('BATCH_FAILED', `a batch of ${batchSize} queries failed: ${errorMessage(cause)}`, { cause });
    this.batchSize = batchSize;
  }
}

/** search() was called after close(). */
export class BatchEngineClosedError extends TandemError {
  override readonly name: string = 'BatchEngineClosedError';
  constructor() {
    super('CLOSED', 'BatchEngine.search was called after close()');
  }
}
