import type { DType } from './dtype.ts';

/** What a tensor looks like without its data. */
export interface TensorSpec {
  /** Element type. */
  readonly dtype: DType;
  /** Dimensions, row-major. */
  readonly shape: readonly number[];
}
