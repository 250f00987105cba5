// Host data for engine.tensor(): which dtype an array carries and its bytes, each mistake a typed error naming the
// argument at fault (the dtype when the dtype is unknown, the data when the data does not fit it).
import { DTYPES, isDType, type DType } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { describeValue } from './shape.ts';

/** Host data accepted by engine.tensor(), per dtype. */
export type TensorData = Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | readonly number[];

/** The host data engine.tensor() takes for each dtype (what read() gives back, plus number[] for f32). */
export interface TensorDataOf {
  /** 32-bit floats, or plain numbers (stored as f32). */
  f32: Float32Array | readonly number[];
  /** binary16 bit patterns (make them with encodeF16). */
  f16: Uint16Array;
  /** Q8_0 blocks (make them with quantizeQ8_0). */
  q8_0: Uint8Array;
  /** Q4_0 blocks (make them with quantizeQ4_0). */
  q4_0: Uint8Array;
  /** 32-bit signed integers. */
  i32: Int32Array;
  /** 32-bit unsigned integers. */
  u32: Uint32Array;
}

const DATA_RULE =
  'must be a Float32Array or number[] (f32), Uint16Array (f16 bits), Int32Array (i32), Uint32Array (u32) or Uint8Array (q8_0/q4_0 blocks)';

/** The dtype of `data`: `dtype` when given (checked to be one Tandem knows), else the array type's default. */
export function dtypeOf(data: unknown, dtype: unknown): DType {
  if (dtype !== undefined) {
    if (!isDType(dtype))
      throw new InvalidArgumentError('tensor.dtype', describeValue(dtype), `must be one of ${DTYPES.join(', ')}`);
    return dtype;
  }
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Uint16Array) return 'f16';
  if (data instanceof Uint8Array)
    throw new InvalidArgumentError('tensor.dtype', undefined, "is required for Uint8Array data ('q8_0' or 'q4_0')");
  if (data instanceof Float32Array || Array.isArray(data)) return 'f32';
  throw new InvalidArgumentError('tensor.data', describeValue(data), DATA_RULE);
}

/** A copy of `data` as bytes of `dtype`, checking that the array type carries that dtype and that numbers are numbers. */
export function bytesOfData(data: unknown, dtype: DType): Uint8Array {
  const fits =
    (dtype === 'f32' && (data instanceof Float32Array || Array.isArray(data))) ||
    (dtype === 'i32' && data instanceof Int32Array) ||
    (dtype === 'u32' && data instanceof Uint32Array) ||
    (dtype === 'f16' && data instanceof Uint16Array) ||
    ((dtype === 'q8_0' || dtype === 'q4_0') && data instanceof Uint8Array);
  if (!fits)
    throw new InvalidArgumentError('tensor.data', describeValue(data), `does not carry dtype ${dtype}: ${DATA_RULE}`);
  if (Array.isArray(data)) {
    const values = new Float32Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const v: unknown = data[i];
      if (typeof v !== 'number')
        throw new InvalidArgumentError(`tensor.data[${i}]`, describeValue(v), 'must be a number');
      values[i] = v;
    }
    return new Uint8Array(values.buffer);
  }
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  return new Uint8Array(0);
}
