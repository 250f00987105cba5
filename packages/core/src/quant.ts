// ggml's Q8_0 / Q4_0 block quantization (quantize_row_q8_0_ref, quantize_row_q4_0_ref, dequantize_row_*)
// and bulk binary16 conversion. Arithmetic is done in float32 (Math.fround) so the bytes match ggml's.
import { Q4_0_BLOCK_BYTES, Q8_0_BLOCK_BYTES, QUANT_BLOCK } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { floatToHalf, halfToFloat } from './half.ts';

const fround = Math.fround;

/** The quantized dtypes. */
export type QuantizedDType = 'q8_0' | 'q4_0';

function expectWholeBlocks(fn: string, argument: string, count: number): void {
  if (!Number.isInteger(count) || count < 0 || count % QUANT_BLOCK !== 0) {
    throw new InvalidArgumentError(
      `${fn}.${argument}`,
      count,
      `must be a non-negative multiple of ${QUANT_BLOCK} (quantization block)`,
    );
  }
}

function expectByteLength(fn: string, bytes: Uint8Array, count: number, blockBytes: number): void {
  const expected = (count / QUANT_BLOCK) * blockBytes;
  if (bytes.byteLength !== expected) {
    throw new InvalidArgumentError(
      `${fn}.bytes.byteLength`,
      bytes.byteLength,
      `must be ${expected} (${count / QUANT_BLOCK} blocks of ${blockBytes} bytes for count ${count})`,
    );
  }
}

/** C's roundf: half-way cases away from zero (Math.round rounds them up). */
function roundHalfAway(x: number): number {
  const r = Math.floor(Math.abs(x) + 0.5);
  return x < 0 ? -r : r;
}

/** Reads a little-endian binary16 scale at byte `offset`. */
function readScale(bytes: Uint8Array, offset: number): number {
  return halfToFloat((bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8));
}

/** Writes a little-endian binary16 scale at byte `offset`. */
function writeScale(bytes: Uint8Array, offset: number, d: number): void {
  const h = floatToHalf(d);
  bytes[offset] = h & 0xff;
  bytes[offset + 1] = h >>> 8;
}

/** ggml's quantize_row_q8_0: per 32 values d = max|x| / 127, q = roundf(x / d); block = f16 d, 32 int8. */
export function quantizeQ8_0(values: Float32Array): Uint8Array {
  expectWholeBlocks('quantizeQ8_0', 'values.length', values.length);
  const blocks = values.length / QUANT_BLOCK;
  const out = new Uint8Array(blocks * Q8_0_BLOCK_BYTES);
  for (let b = 0; b < blocks; b++) {
    const base = b * QUANT_BLOCK;
    let amax = 0;
    for (let j = 0; j < QUANT_BLOCK; j++) {
      const v = Math.abs(values[base + j] ?? 0);
      // biome-ignore lint/complexity/useMathMinMax: Math.max propagates NaN; ggml's MAX(a, b) macro does not
      amax = amax > v ? amax : v; // ggml's MAX(a, b) macro, NaN handling included
    }
    const d = fround(amax / 127);
    const id = d !== 0 ? fround(1 / d) : 0;
    const o = b * Q8_0_BLOCK_BYTES;
    writeScale(out, o, d);
    for (let j = 0; j < QUANT_BLOCK; j++) {
      out[o + 2 + j] = roundHalfAway(fround((values[base + j] ?? 0) * id)) & 0xff;
    }
  }
  return out;
}

/** ggml's quantize_row_q4_0: d = (signed value of largest |x|) / -8, q = min(15, trunc(x / d + 8.5)); byte j = q[j] | q[j + 16] << 4. */
export function quantizeQ4_0(values: Float32Array): Uint8Array {
  expectWholeBlocks('quantizeQ4_0', 'values.length', values.length);
  const blocks = values.length / QUANT_BLOCK;
  const half = QUANT_BLOCK / 2;
  const out = new Uint8Array(blocks * Q4_0_BLOCK_BYTES);
  for (let b = 0; b < blocks; b++) {
    const base = b * QUANT_BLOCK;
    let amax = 0;
    let max = 0;
    for (let j = 0; j < QUANT_BLOCK; j++) {
      const v = values[base + j] ?? 0;
      if (amax < Math.abs(v)) {
        amax = Math.abs(v);
        max = v;
      }
    }
    const d = fround(max / -8);
    const id = d !== 0 ? fround(1 / d) : 0;
    const o = b * Q4_0_BLOCK_BYTES;
    writeScale(out, o, d);
    for (let j = 0; j < half; j++) {
      const lo = Math.min(15, Math.trunc(fround(fround((values[base + j] ?? 0) * id) + 8.5)));
      const hi = Math.min(15, Math.trunc(fround(fround((values[base + half + j] ?? 0) * id) + 8.5)));
      out[o + 2 + j] = (lo & 0x0f) | ((hi & 0x0f) << 4);
    }
  }
  return out;
}

/** ggml's dequantize_row_q8_0: value = q * d, d decoded from the block's f16 scale. */
export function dequantizeQ8_0(bytes: Uint8Array, count: number): Float32Array {
  expectWholeBlocks('dequantizeQ8_0', 'count', count);
  expectByteLength('dequantizeQ8_0', bytes, count, Q8_0_BLOCK_BYTES);
  const out = new Float32Array(count);
  const blocks = count / QUANT_BLOCK;
  for (let b = 0; b < blocks; b++) {
    const o = b * Q8_0_BLOCK_BYTES;
    const d = readScale(bytes, o);
    const base = b * QUANT_BLOCK;
    for (let j = 0; j < QUANT_BLOCK; j++) {
      const q = ((bytes[o + 2 + j] ?? 0) << 24) >> 24; // sign-extend int8
      out[base + j] = q * d;
    }
  }
  return out;
}

/** ggml's dequantize_row_q4_0: value = (q - 8) * d; value j in the low nibble of byte j, j + 16 in the high. */
export function dequantizeQ4_0(bytes: Uint8Array, count: number): Float32Array {
  expectWholeBlocks('dequantizeQ4_0', 'count', count);
  expectByteLength('dequantizeQ4_0', bytes, count, Q4_0_BLOCK_BYTES);
  const out = new Float32Array(count);
  const blocks = count / QUANT_BLOCK;
  const half = QUANT_BLOCK / 2;
  for (let b = 0; b < blocks; b++) {
    const o = b * Q4_0_BLOCK_BYTES;
    const d = readScale(bytes, o);
    const base = b * QUANT_BLOCK;
    for (let j = 0; j < half; j++) {
      const byte = bytes[o + 2 + j] ?? 0;
      out[base + j] = ((byte & 0x0f) - 8) * d;
      out[base + half + j] = ((byte >>> 4) - 8) * d;
    }
  }
  return out;
}

/** Quantizes with the given block format (quantizeQ8_0 or quantizeQ4_0). */
export function quantizeAs(dtype: QuantizedDType, values: Float32Array): Uint8Array {
  return dtype === 'q8_0' ? quantizeQ8_0(values) : quantizeQ4_0(values);
}

/** Expands `count` values of the given block format (dequantizeQ8_0 or dequantizeQ4_0). */
export function dequantizeFrom(dtype: QuantizedDType, bytes: Uint8Array, count: number): Float32Array {
  return dtype === 'q8_0' ? dequantizeQ8_0(bytes, count) : dequantizeQ4_0(bytes, count);
}

/** Encodes float32 values as binary16 bit patterns (round to nearest even, overflow to +-Inf). */
export function encodeF16(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = floatToHalf(values[i] ?? 0);
  return out;
}

/** Decodes binary16 bit patterns to float32 values (exact: every f16 is an f32). */
export function decodeF16(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = halfToFloat(bits[i] ?? 0);
  return out;
}
