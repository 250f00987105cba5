// A tensor on the host as raw bytes: the form the reference computes on and the conformance suite passes around.
// Raw bytes let f16 (binary16 bits) and q8_0 / q4_0 (ggml blocks) travel the same way as f32.
import type { DType } from '@tandem/core';

/** A contiguous row-major tensor held in host memory. */
export interface HostTensor {
  /** Element type; `data` is laid out as byteLengthOf(dtype, numel(shape)) bytes. */
  readonly dtype: DType;
  /** Dimensions, row-major. */
  readonly shape: readonly number[];
  /** The tensor's bytes (f16 as binary16 bits, quantized types as ggml blocks), little-endian. */
  readonly data: Uint8Array;
}
