// How tensors are laid out in device buffers. f16 is stored as binary16, two values per 32-bit word (half the memory
// and transfer of f32), and widened to f32 around each op: kernels read and write f32, and those producing f16 round
// their results to binary16 (ROUND_F16), so chained f16 ops see exactly what a binary16 device would (the f16_unpack
// and f16_pack kernels; f16-storage.ts). Quantized blocks keep ggml's bytes, zero-padded to a whole number of
// 4-byte words.
import { byteLengthOf, numel, type TensorSpec } from '@tandem/core';

/** Bytes the host sees for a tensor (the dtype's own layout). */
export function hostByteLength(spec: TensorSpec): number {
  return byteLengthOf(spec.dtype, numel(spec.shape));
}

/** Bytes a tensor occupies in its device buffer: the host layout padded to whole 4-byte words (f16 as binary16). */
export function storageByteLength(spec: TensorSpec): number {
  return Math.ceil(hostByteLength(spec) / 4) * 4;
}

/** Bytes kernels read or write for a tensor: 4 per element for f32, f16 (widened), i32, u32; quantized padded to 4. */
export function kernelByteLength(spec: TensorSpec): number {
  if (spec.dtype === 'f16') return numel(spec.shape) * 4;
  return storageByteLength(spec);
}

/** Host bytes in the dtype's layout -> the bytes to write to the device (padded to a multiple of 4). */
export function toDeviceBytes(data: Uint8Array, spec: TensorSpec): Uint8Array {
  const length = storageByteLength(spec);
  if (data.byteLength === length && data.byteOffset % 4 === 0) return data;
  const padded = new Uint8Array(length);
  padded.set(data.subarray(0, Math.min(data.byteLength, length)));
  return padded;
}

/** Bytes read back from the device -> host bytes in the dtype's layout. */
export function fromDeviceBytes(bytes: Uint8Array, spec: TensorSpec): Uint8Array {
  const length = hostByteLength(spec);
  return length === bytes.byteLength ? bytes : bytes.slice(0, length);
}
