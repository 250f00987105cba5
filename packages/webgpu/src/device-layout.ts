// How tensors are laid out in device buffers. f16 is held as f32 (WebGPU's f16 needs the optional
// 'shader-f16' feature, which software adapters lack; kernels round f16 results with ROUND_F16 so values stay
// binary16-exact). Quantized blocks keep ggml's bytes, zero-padded to a whole number of 4-byte words.
import { byteLengthOf, floatToHalf, halfToFloat, numel, type TensorSpec } from '@tandem/core';

/** Bytes the host sees for a tensor (the dtype's own layout). */
export function hostByteLength(spec: TensorSpec): number {
  return byteLengthOf(spec.dtype, numel(spec.shape));
}

/** Bytes a tensor occupies on the device: 4 per element for f32, f16, i32, u32; quantized padded to 4. */
export function deviceByteLength(spec: TensorSpec): number {
  if (spec.dtype === 'f16') return numel(spec.shape) * 4;
  return Math.ceil(hostByteLength(spec) / 4) * 4;
}

let halfTable: Float32Array | undefined;

/** Every binary16 bit pattern decoded, built on first use (256 KiB). */
function halves(): Float32Array {
  if (halfTable === undefined) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfToFloat(h);
  }
  return halfTable;
}

/** Host bytes in the dtype's layout -> the bytes to write to the device (a multiple of 4 long). */
export function toDeviceBytes(data: Uint8Array, spec: TensorSpec): Uint8Array {
  if (spec.dtype === 'f16') {
    const count = numel(spec.shape);
    const bits = new Uint16Array(count);
    new Uint8Array(bits.buffer).set(data.subarray(0, count * 2));
    const table = halves();
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = table[bits[i] ?? 0] ?? 0;
    return new Uint8Array(out.buffer);
  }
  const length = deviceByteLength(spec);
  if (data.byteLength === length && data.byteOffset % 4 === 0) return data;
  const padded = new Uint8Array(length);
  padded.set(data.subarray(0, Math.min(data.byteLength, length)));
  return padded;
}

/** Bytes read back from the device -> host bytes in the dtype's layout. */
export function fromDeviceBytes(bytes: Uint8Array, spec: TensorSpec): Uint8Array {
  if (spec.dtype === 'f16') {
    const count = numel(spec.shape);
    const values = new Float32Array(bytes.buffer, bytes.byteOffset, count);
    const out = new Uint16Array(count);
    for (let i = 0; i < count; i++) out[i] = floatToHalf(values[i] ?? 0);
    return new Uint8Array(out.buffer);
  }
  const length = hostByteLength(spec);
  return length === bytes.byteLength ? bytes : bytes.slice(0, length);
}
