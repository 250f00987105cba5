// Host tensors for the conformance cases: constructors from typed arrays or seeded random data, and a decoder
// back to numbers for comparison. Raw bytes carry every dtype (f16 bits, ggml blocks) the same way.
import {
  byteLengthOf,
  decodeF16,
  encodeF16,
  InvalidArgumentError,
  numel,
  quantizeAs,
  type QuantizedDType,
  type Rng,
} from '@tandem/core';
import { bytesOf, dequantize, readF32, readI32, readU16, readU32, type HostTensor } from '@tandem/reference';

export type { HostTensor } from '@tandem/reference';

function expectCount(what: string, shape: readonly number[], length: number): void {
  if (numel(shape) !== length)
    throw new InvalidArgumentError(
      `${what}.length`,
      length,
      `must equal the element count of [${shape.join(', ')}] (${numel(shape)})`,
    );
}

/** An f32 tensor holding `values`. */
export function hostF32(shape: number[], values: Float32Array): HostTensor {
  expectCount('hostF32.values', shape, values.length);
  return { dtype: 'f32', shape, data: bytesOf(values) };
}

/** An f16 tensor holding `values` rounded to binary16. */
export function hostF16(shape: number[], values: Float32Array): HostTensor {
  expectCount('hostF16.values', shape, values.length);
  return { dtype: 'f16', shape, data: bytesOf(encodeF16(values)) };
}

/** A u32 tensor holding `values`. */
export function hostU32(shape: number[], values: Uint32Array): HostTensor {
  expectCount('hostU32.values', shape, values.length);
  return { dtype: 'u32', shape, data: bytesOf(values) };
}

/** A q8_0 / q4_0 tensor: `values` quantized with ggml's algorithm (element count a multiple of 32). */
export function hostQuantized(dtype: QuantizedDType, shape: number[], values: Float32Array): HostTensor {
  expectCount('hostQuantized.values', shape, values.length);
  return { dtype, shape, data: quantizeAs(dtype, values) };
}

/** Normal(0, std) values, rounded to f32. */
export function normalValues(rng: Rng, count: number, std = 1): Float32Array {
  return rng.fillNormal(new Float32Array(count), std);
}

/** An f32 tensor of normal(0, std) values. */
export function normalF32(rng: Rng, shape: number[], std = 1): HostTensor {
  return hostF32(shape, normalValues(rng, numel(shape), std));
}

/** An f16 tensor of normal(0, std) values. */
export function normalF16(rng: Rng, shape: number[], std = 1): HostTensor {
  return hostF16(shape, normalValues(rng, numel(shape), std));
}

/** A quantized tensor of normal(0, std) values. */
export function normalQuantized(rng: Rng, dtype: QuantizedDType, shape: number[], std = 1): HostTensor {
  return hostQuantized(dtype, shape, normalValues(rng, numel(shape), std));
}

/** A tensor's values as numbers: f16 decoded, quantized types expanded, integers as they are. */
export function valuesOf(t: HostTensor): Float32Array | Int32Array | Uint32Array {
  const expected = byteLengthOf(t.dtype, numel(t.shape));
  if (t.data.byteLength !== expected)
    throw new InvalidArgumentError(
      'tensor.data.byteLength',
      t.data.byteLength,
      `must be ${expected} for ${t.dtype} [${t.shape.join(', ')}]`,
    );
  if (t.dtype === 'f32') return readF32(t.data);
  if (t.dtype === 'f16') return decodeF16(readU16(t.data));
  if (t.dtype === 'i32') return readI32(t.data);
  if (t.dtype === 'u32') return readU32(t.data);
  return dequantize(t.dtype, t.data, numel(t.shape)); // q8_0 / q4_0
}
