// A selection reason as the page words it: core's describeReason, except where its short form reads as untrue to
// someone watching the page. "below gpuMinBatchSize (no GPU measurement yet)" appeared after the GPU had visibly run
// the op (under gpu-preferred): that run was its warm-up, which the cost model does not learn from.
import { describeReason, type SelectionReason } from '@tandem/core';

/** The reason in the page's words. */
export function reasonText(reason: SelectionReason): string {
  if (reason.kind === 'below-min-batch') {
    return `batch ${reason.batch} is below gpuMinBatchSize ${reason.minBatch}, and the cost model has learned no GPU time for this op at this size yet (a backend's first call of an op is a warm-up, not learned from)`;
  }
  return describeReason(reason);
}
