// dequantize: q8_0 / q4_0 blocks or f16 bits -> f32 values, exactly (every value is representable in f32).
import { decodeF16, dequantizeFrom, InvalidArgumentError, isQuantized, numel, type DType } from '@tandem/core';
import { bytesOf, readU16 } from '../bytes.ts';
import { expectLength, type ReferenceKernel } from '../kernel-support.ts';

/** The dtypes dequantize accepts. */
export type DequantizableDType = 'q8_0' | 'q4_0' | 'f16';

/** Expands `count` values stored as `dtype` in raw little-endian bytes to f32. */
export function dequantize(dtype: DequantizableDType, data: Uint8Array, count: number): Float32Array {
  if (dtype === 'f16') {
    expectLength('dequantize.data', data, count * 2);
    return decodeF16(readU16(data, 'dequantize.data'));
  }
  return dequantizeFrom(dtype, data, count);
}

function isDequantizable(dtype: DType): dtype is DequantizableDType {
  return dtype === 'f16' || isQuantized(dtype);
}

/** The reference's dequantize. */
export const dequantizeKernel: ReferenceKernel<'dequantize'> = {
  run(op) {
    const dtype = op.x.dtype;
    if (!isDequantizable(dtype))
      throw new InvalidArgumentError('dequantize.x.dtype', dtype, 'must be q8_0, q4_0 or f16');
    return [bytesOf(dequantize(dtype, op.x.data, numel(op.x.shape)))];
  },
};
