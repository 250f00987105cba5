// vectors.bin: the demo's unit word vectors as IEEE half floats (browser-safe). Half the bytes of f32 (10 MB for
// 50,000 x 100) and what the page's brute force and HNSW index both use: prepare-data rounds the unit vectors to
// f16 first and builds the index on the rounded values, so the graph-only index file matches them exactly.
// Layout, little-endian: u32 magic 0x46564454 (bytes "T D V F"), u32 version = 1, u32 count, u32 dim, u32 CRC-32 of
// every byte after these 20, then count x dim u16 half floats, row-major.
import { crc32, floatToHalf, halfToFloat } from '@tandem/core';
import { DemoDataError } from './demo-data-error.ts';

const MAGIC = 0x46564454;
const VERSION = 1;
const HEADER_BYTES = 20;
/** The file's name in data/. */
const FILE = 'vectors.bin';

/** The vectors rounded to what a half float holds, as f32 (what the page gets back from the file). */
export function roundToHalf(vectors: Float32Array): Float32Array {
  return vectors.map((v) => halfToFloat(floatToHalf(v)));
}

/** vectors.bin's bytes for `count` x `dim` vectors. */
export function encodeVectors(vectors: Float32Array, dim: number): Uint8Array {
  const count = vectors.length / dim;
  const bytes = new Uint8Array(HEADER_BYTES + 2 * vectors.length);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vectors.length; i++) view.setUint16(HEADER_BYTES + 2 * i, floatToHalf(vectors[i] ?? 0), true);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, count, true);
  view.setUint32(12, dim, true);
  view.setUint32(16, crc32(bytes.subarray(HEADER_BYTES)), true);
  return bytes;
}

/** Reads vectors.bin as f32; throws DemoDataError on a bad header, size, count or checksum. */
export function decodeVectors(bytes: Uint8Array, expectedCount: number, expectedDim: number): Float32Array {
  if (bytes.byteLength < HEADER_BYTES)
    throw new DemoDataError(FILE, `${bytes.byteLength} bytes is shorter than the ${HEADER_BYTES}-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new DemoDataError(FILE, 'bad magic (not a demo vectors file)');
  if (view.getUint32(4, true) !== VERSION)
    throw new DemoDataError(FILE, `version ${view.getUint32(4, true)} is not ${VERSION}`);
  const count = view.getUint32(8, true);
  const dim = view.getUint32(12, true);
  if (count !== expectedCount || dim !== expectedDim)
    throw new DemoDataError(
      FILE,
      `holds ${count} vectors of ${dim}; the manifest says ${expectedCount} of ${expectedDim}`,
    );
  if (bytes.byteLength !== HEADER_BYTES + 2 * count * dim)
    throw new DemoDataError(
      FILE,
      `is ${bytes.byteLength} bytes; ${count} x ${dim} half floats need ${HEADER_BYTES + 2 * count * dim}`,
    );
  if (crc32(bytes.subarray(HEADER_BYTES)) !== view.getUint32(16, true))
    throw new DemoDataError(FILE, 'checksum mismatch (the file is corrupt)');
  const out = new Float32Array(count * dim);
  for (let i = 0; i < out.length; i++) out[i] = halfToFloat(view.getUint16(HEADER_BYTES + 2 * i, true));
  return out;
}
