/** Element types a tensor can hold. q8_0 / q4_0 use ggml's block layouts (32 values per block). */
export type DType = 'f32' | 'f16' | 'q8_0' | 'q4_0' | 'i32' | 'u32';

/** Every dtype, for iteration in tests and capability tables. */
export const DTYPES: readonly DType[] = ['f32', 'f16', 'q8_0', 'q4_0', 'i32', 'u32'];

/** Values per quantization block (ggml's QK8_0 and QK4_0). */
export const QUANT_BLOCK = 32;

/** Bytes of one Q8_0 block: f16 scale + 32 int8. */
export const Q8_0_BLOCK_BYTES = 2 + 32;

/** Bytes of one Q4_0 block: f16 scale + 16 bytes of nibbles (value j in the low nibble of byte j, j+16 in the high). */
export const Q4_0_BLOCK_BYTES = 2 + 16;

/** Whether `value` names a dtype Tandem knows. */
export function isDType(value: unknown): value is DType {
  return DTYPES.some((d) => d === value);
}

export function isQuantized(dtype: DType): dtype is 'q8_0' | 'q4_0' {
  return dtype === 'q8_0' || dtype === 'q4_0';
}

export function isFloat(dtype: DType): dtype is 'f32' | 'f16' {
  return dtype === 'f32' || dtype === 'f16';
}

/** Bytes needed to store `count` elements of `dtype` (count must be a multiple of 32 for quantized types). */
export function byteLengthOf(dtype: DType, count: number): number {
  switch (dtype) {
    case 'f32':
    case 'i32':
    case 'u32':
      return count * 4;
    case 'f16':
      return count * 2;
    case 'q8_0':
      return Math.ceil(count / QUANT_BLOCK) * Q8_0_BLOCK_BYTES;
    case 'q4_0':
      return Math.ceil(count / QUANT_BLOCK) * Q4_0_BLOCK_BYTES;
  }
}

/** The JS array type a dtype reads back as. Quantized and f16 tensors read back as raw bytes / uint16. */
export type HostArray = Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;
