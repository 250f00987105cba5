import { describe, expect, it } from 'vitest';
import { crc32 } from '@tandem/core';
import { DatasetError } from '../errors.ts';
import { decodeVectorCache, encodeVectorCache } from './vector-cache.ts';

const DATA = { words: ['alpha', 'béta', 'γ'], dim: 2, vectors: Float32Array.from([1, -2, 0.5, 0.25, -0, 3e-8]) };

function decodeError(bytes: Uint8Array): unknown {
  try {
    decodeVectorCache(bytes, 'cache.bin');
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Rewrites the checksum so a deliberate edit of the body reaches the later checks. */
function resealed(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer).setUint32(20, crc32(bytes.subarray(32)), true);
  return bytes;
}

describe('vector cache format', () => {
  it('round-trips words, dims, values and the source size', () => {
    const decoded = decodeVectorCache(encodeVectorCache(DATA, 1234), 'cache.bin');
    expect(decoded.sourceBytes).toBe(1234);
    expect(decoded.data.words).toEqual(DATA.words);
    expect(decoded.data.dim).toBe(2);
    expect(Array.from(decoded.data.vectors)).toEqual(Array.from(DATA.vectors));
  });

  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it.each([
    ['bad magic', (b: Uint8Array) => ((b[0] = 0x41), b), /bad magic/],
    ['an unknown version', (b: Uint8Array) => ((b[4] = 9), b), /unsupported version 9/],
    ['a truncated file', (b: Uint8Array) => b.subarray(0, b.length - 4), /size \d+ bytes, expected \d+/],
    ['a file shorter than the header', (b: Uint8Array) => b.subarray(0, 10), /truncated: 10 bytes/],
    [
      'a flipped value byte',
      (b: Uint8Array) => ((b[b.length - 2] = (b[b.length - 2] ?? 0) ^ 1), b),
      /checksum mismatch/,
    ],
    ['a word count that disagrees', (b: Uint8Array) => resealed(((b[8] = 2), b)), /size \d+ bytes, expected/],
    [
      'a non-finite value',
      (b: Uint8Array) => resealed((new DataView(b.buffer).setFloat32(b.length - 4, Number.NaN, true), b)),
      /value 1 of word 2 is not finite/,
    ],
  ])('rejects %s with a DatasetError', (_name, corrupt, message) => {
    const error = decodeError(corrupt(encodeVectorCache(DATA, 1)));
    expect(error).toBeInstanceOf(DatasetError);
    expect(String(error)).toMatch(/cache\.bin/);
    expect(String(error)).toMatch(message);
  });

  it('refuses to encode words containing the separator', () => {
    expect(() => encodeVectorCache({ words: ['a\nb'], dim: 1, vectors: Float32Array.from([1]) }, 0)).toThrow(/newline/);
  });
});
