// Typed views over raw little-endian bytes. A view aliases the bytes when they are aligned and copies them
// when they are not (a Float32Array must start at a multiple of 4 bytes).
import { InvalidArgumentError } from '@tandem/core';

/** Bytes whose offset is a multiple of `elementBytes`: the input itself, or an aligned copy. */
function alignedBytes(argument: string, bytes: Uint8Array, elementBytes: number): Uint8Array {
  if (bytes.byteLength % elementBytes !== 0) {
    throw new InvalidArgumentError(`${argument}.byteLength`, bytes.byteLength, `must be a multiple of ${elementBytes}`);
  }
  return bytes.byteOffset % elementBytes === 0 ? bytes : bytes.slice();
}

/** The bytes as float32 values (a view when aligned, else a copy). */
export function readF32(bytes: Uint8Array, argument = 'bytes'): Float32Array {
  const b = alignedBytes(argument, bytes, 4);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

/** The bytes as binary16 bit patterns (a view when aligned, else a copy). */
export function readU16(bytes: Uint8Array, argument = 'bytes'): Uint16Array {
  const b = alignedBytes(argument, bytes, 2);
  return new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
}

/** The bytes as uint32 values (a view when aligned, else a copy). */
export function readU32(bytes: Uint8Array, argument = 'bytes'): Uint32Array {
  const b = alignedBytes(argument, bytes, 4);
  return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

/** The bytes as int32 values (a view when aligned, else a copy). */
export function readI32(bytes: Uint8Array, argument = 'bytes'): Int32Array {
  const b = alignedBytes(argument, bytes, 4);
  return new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

/** The bytes behind a typed array (a view, not a copy). */
export function bytesOf(values: Float32Array | Uint16Array | Uint32Array | Int32Array | Uint8Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}
