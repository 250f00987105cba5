// Inputs of the ROCm suite, made fast enough for a 3 GiB target set: a xorshift fill for f32 and random ggml
// blocks (random nibbles / int8 with a small positive f16 scale per block). Deterministic per seed.
import { floatToHalf, InvalidArgumentError } from '@tandem/core';
import { BLOCK_BYTES, type BlockFormat } from './figures.ts';

/** Fills `out` with values in [-1, 1) from a xorshift32 stream seeded by `seed` (0 counts as 1); returns it. */
export function fillSigned(out: Float32Array, seed: number): Float32Array {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = (x >>> 0) * 4.656612873077393e-10 - 1;
  }
  return out;
}

/** A new Float32Array of `count` values in [-1, 1). */
export function signedValues(count: number, seed: number): Float32Array {
  return fillSigned(new Float32Array(count), seed);
}

/** Random blocks of a [rows, cols] matrix in `format` (cols a multiple of 32): random payload, scales in [0.001, 0.051). */
export function randomBlockMatrix(format: BlockFormat, rows: number, cols: number, seed: number): Uint8Array {
  if (cols <= 0 || cols % 32 !== 0) throw new InvalidArgumentError('cols', cols, 'must be a positive multiple of 32');
  const blockBytes = BLOCK_BYTES[format];
  const blocks = (rows * cols) / 32;
  const bytes = new Uint8Array(blocks * blockBytes);
  const words = new Uint32Array(bytes.buffer, 0, bytes.byteLength >>> 2);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  for (let b = 0; b < blocks; b++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const bits = floatToHalf(0.001 + 0.05 * ((x >>> 0) / 4294967296));
    bytes[b * blockBytes] = bits & 0xff;
    bytes[b * blockBytes + 1] = bits >>> 8;
  }
  return bytes;
}
