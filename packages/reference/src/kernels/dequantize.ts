// dequantize: q8_0 / q4_0 blocks or f16 bits -> f32 values, exactly (every value is representable in f32).
import { decodeF16, dequantizeFrom } from '@tandem/core';
import { readU16 } from '../bytes.ts';
import { expectLength } from './check.ts';

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
