// The conformance cases, as data (after ggml's test-backend-ops): every op, every dtype it accepts, odd and
// degenerate sizes, and a few large ones. A new op needs cases here, or conformance.test.ts fails.
import type { ConformanceCase } from './case.ts';
import { ATTENTION_CASES } from './cases/attention.ts';
import { CONCAT_CASES } from './cases/concat.ts';
import { ELEMENTWISE_CASES } from './cases/elementwise.ts';
import { MATMUL_CASES } from './cases/matmul.ts';
import { NORMALIZATION_CASES } from './cases/normalization.ts';
import { QUANTIZED_CASES } from './cases/quantized.ts';
import { SEARCH_CASES } from './cases/search.ts';

export * from './case.ts';
export * from './host-tensor.ts';

/** Every conformance case, grouped by op family. */
export const CASES: readonly ConformanceCase[] = [
  ...MATMUL_CASES,
  ...QUANTIZED_CASES,
  ...ELEMENTWISE_CASES,
  ...NORMALIZATION_CASES,
  ...ATTENTION_CASES,
  ...SEARCH_CASES,
  ...CONCAT_CASES,
];
