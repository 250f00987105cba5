// Binary cache of word vectors, little-endian:
//   0  magic "TDWV" (4 bytes)          16  words block byte length (u32)
//   4  version (u32, 1)                20  CRC-32 of every byte from 32 to the end (u32)
//   8  count (u32)                     24  byte size of the source file it was converted from (u32)
//  12  dim (u32)                       28  reserved, 0 (u32)
//  32  words, UTF-8, joined by '\n', zero-padded to a multiple of 4 bytes
//  ..  count * dim f32 vectors, row-major
// Reading checks magic, version, sizes, checksum, word count and that every value is finite.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from '@tandem/core';
import { DatasetError } from '../errors.ts';
import type { WordVectors } from '../types.ts';

const MAGIC = 0x56574454; // "TDWV" read as a little-endian u32
const VERSION = 1;
const HEADER_BYTES = 32;

/** A cache file's contents and the source size it was converted from. */
export interface CachedVectors {
  /** The vectors. */
  readonly data: WordVectors;
  /** Byte size of the source file (a different size means the source changed: convert again). */
  readonly sourceBytes: number;
}

/** Serialises word vectors (words must not contain '\n'). */
export function encodeVectorCache(data: WordVectors, sourceBytes: number): Uint8Array {
  const { words, dim, vectors } = data;
  if (vectors.length !== words.length * dim)
    throw new DatasetError('vector cache', `vectors has ${vectors.length} floats, expected ${words.length} x ${dim}`);
  const newline = words.findIndex((w) => w.includes('\n'));
  if (newline >= 0)
    throw new DatasetError(
      'vector cache',
      `word ${newline} contains a newline, which the cache format uses as separator`,
    );
  const wordBytes = new TextEncoder().encode(words.join('\n'));
  const wordsPadded = Math.ceil(wordBytes.length / 4) * 4;
  const bytes = new Uint8Array(HEADER_BYTES + wordsPadded + vectors.length * 4);
  bytes.set(wordBytes, HEADER_BYTES);
  const body = new DataView(bytes.buffer, HEADER_BYTES + wordsPadded);
  for (let i = 0; i < vectors.length; i++) body.setFloat32(i * 4, vectors[i] ?? 0, true);
  const header = new DataView(bytes.buffer, 0, HEADER_BYTES);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, VERSION, true);
  header.setUint32(8, words.length, true);
  header.setUint32(12, dim, true);
  header.setUint32(16, wordBytes.length, true);
  header.setUint32(20, crc32(bytes.subarray(HEADER_BYTES)), true);
  header.setUint32(24, sourceBytes, true);
  return bytes;
}

/** Parses and validates a cache file's bytes; `file` names it in errors. */
export function decodeVectorCache(bytes: Uint8Array, file: string): CachedVectors {
  if (bytes.length < HEADER_BYTES)
    throw new DatasetError(file, `truncated: ${bytes.length} bytes, the header alone is ${HEADER_BYTES}`);
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  if (header.getUint32(0, true) !== MAGIC)
    throw new DatasetError(file, 'bad magic: not a Tandem word-vector cache (expected "TDWV")');
  const version = header.getUint32(4, true);
  if (version !== VERSION)
    throw new DatasetError(file, `unsupported version ${version} (this reader knows ${VERSION})`);
  const count = header.getUint32(8, true);
  const dim = header.getUint32(12, true);
  const wordBytes = header.getUint32(16, true);
  const wordsPadded = Math.ceil(wordBytes / 4) * 4;
  const expected = HEADER_BYTES + wordsPadded + count * dim * 4;
  if (dim === 0) throw new DatasetError(file, 'dim is 0');
  if (bytes.length !== expected)
    throw new DatasetError(
      file,
      `size ${bytes.length} bytes, expected ${expected} for ${count} words x ${dim} dims (truncated or padded)`,
    );
  const checksum = crc32(bytes.subarray(HEADER_BYTES));
  if (checksum !== header.getUint32(20, true))
    throw new DatasetError(file, `checksum mismatch: stored ${header.getUint32(20, true)}, computed ${checksum}`);
  const words =
    count === 0
      ? []
      : new TextDecoder('utf-8', { fatal: true })
          .decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + wordBytes))
          .split('\n');
  if (words.length !== count)
    throw new DatasetError(file, `words block has ${words.length} words, header says ${count}`);
  const vectors = readFloat32(bytes, HEADER_BYTES + wordsPadded, count * dim);
  for (let i = 0; i < vectors.length; i++) {
    if (!Number.isFinite(vectors[i]))
      throw new DatasetError(file, `value ${i % dim} of word ${Math.floor(i / dim)} is not finite`);
  }
  return { data: { words, dim, vectors }, sourceBytes: header.getUint32(24, true) };
}

/** Reads a cache file; undefined when it does not exist, DatasetError when it is corrupt. */
export async function readVectorCache(file: string): Promise<CachedVectors | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof Error && Reflect.get(error, 'code') === 'ENOENT') return undefined;
    throw new DatasetError(file, `cannot read the cache: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return decodeVectorCache(bytes, file);
}

/** Writes a cache file atomically (temporary file, then rename). */
export async function writeVectorCache(file: string, data: WordVectors, sourceBytes: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, encodeVectorCache(data, sourceBytes));
  await rename(temporary, file);
}

/** `count` little-endian f32 values starting at `offset`, copied into a new array. */
function readFloat32(bytes: Uint8Array, offset: number, count: number): Float32Array {
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * 4);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
