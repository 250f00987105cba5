// The saved index formats (little-endian; README.md in this folder describes them field by field): version 1 holds
// the graph and its unit vectors; version 2 holds the graph only, with the CRC-32 of the unit vectors it was built
// on, so a load with other vectors is refused instead of giving a silently wrong index.
import { crc32 } from '@tandem/core';
import { HnswFormatError } from './errors.ts';
import type { GraphArrays } from './graph.ts';
import { MAX_LEVEL } from './level-generator.ts';

const MAGIC = 0x4e484454; // "TDHN" read as a little-endian u32
const VERSION = 1;
const HEADER_BYTES = 48;
const GRAPH_ONLY_VERSION = 2;
const GRAPH_ONLY_HEADER_BYTES = 56;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A decoded file: the graph's arrays, with the vectors absent (and their CRC-32 given) for a graph-only file. */
export type DecodedIndex = Omit<GraphArrays, 'vectors'> &
  (
    | { readonly vectors: Float32Array; readonly vectorsCrc?: undefined }
    | { readonly vectors?: undefined; readonly vectorsCrc: number }
  );

/** Serialises a graph's arrays (version 1: graph and vectors). */
export function encodeIndex(a: GraphArrays): Uint8Array {
  const levelsBytes = pad4(a.count);
  const total = HEADER_BYTES + levelsBytes + 4 * (a.links0.length + a.upperLinks.length + a.vectors.length);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  writeHeader(view, a, VERSION);
  bytes.set(a.levels, HEADER_BYTES);
  let at = HEADER_BYTES + levelsBytes;
  at = writeI32(view, at, a.links0);
  at = writeI32(view, at, a.upperLinks);
  for (let i = 0; i < a.vectors.length; i++, at += 4) view.setFloat32(at, a.vectors[i] ?? 0, true);
  view.setUint32(44, crc32(bytes.subarray(HEADER_BYTES)), true);
  return bytes;
}

/**
 * Serialises a graph's arrays without the vectors (version 2): the header also holds the CRC-32 of the unit vectors
 * (vectorsCrc32) and its checksum covers the header too.
 */
export function encodeGraphOnly(a: GraphArrays): Uint8Array {
  const levelsBytes = pad4(a.count);
  const total = GRAPH_ONLY_HEADER_BYTES + levelsBytes + 4 * (a.links0.length + a.upperLinks.length);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  writeHeader(view, a, GRAPH_ONLY_VERSION);
  view.setUint32(48, vectorsCrc32(a.vectors), true);
  view.setUint32(52, 0, true); // reserved (flags), 0
  bytes.set(a.levels, GRAPH_ONLY_HEADER_BYTES);
  let at = GRAPH_ONLY_HEADER_BYTES + levelsBytes;
  at = writeI32(view, at, a.links0);
  writeI32(view, at, a.upperLinks);
  view.setUint32(44, graphOnlyChecksum(bytes), true);
  return bytes;
}

/** CRC-32 of unit vectors as little-endian f32 bytes (what a version-2 file records of the vectors it was built on). */
export function vectorsCrc32(vectors: Float32Array): number {
  if (LITTLE_ENDIAN_HOST) return crc32(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  const chunk = new Uint8Array(4096 * 4);
  const view = new DataView(chunk.buffer);
  let crc = 0;
  for (let start = 0; start < vectors.length; start += 4096) {
    const n = Math.min(4096, vectors.length - start);
    for (let i = 0; i < n; i++) view.setFloat32(4 * i, vectors[start + i] ?? 0, true);
    crc = crc32(chunk.subarray(0, 4 * n), crc);
  }
  return crc;
}

/** Version 2's checksum: CRC-32 of bytes 0..43 and 48..end (everything but the checksum field). */
function graphOnlyChecksum(bytes: Uint8Array): number {
  return crc32(bytes.subarray(48), crc32(bytes.subarray(0, 44)));
}

function writeHeader(view: DataView, a: GraphArrays, version: number): void {
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, version, true);
  view.setUint32(8, a.dim, true);
  view.setUint32(12, a.count, true);
  view.setUint32(16, a.m, true);
  view.setUint32(20, a.maxM0, true);
  view.setUint32(24, a.efConstruction, true);
  view.setInt32(28, a.entryPoint, true);
  view.setInt32(32, a.maxLevel, true);
  view.setUint32(36, a.levelState >>> 0, true);
  view.setUint32(40, a.upperLinks.length, true);
}

/** Parses and validates saved bytes (version 1 or 2); throws HnswFormatError naming the first problem found. */
export function decodeIndex(bytes: Uint8Array): DecodedIndex {
  if (bytes.length < HEADER_BYTES)
    throw new HnswFormatError(
      `truncated at offset ${bytes.length}: the header needs ${HEADER_BYTES} bytes`,
      bytes.length,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC)
    throw new HnswFormatError('bad magic: not a Tandem HNSW index (expected "TDHN")', 0);
  const version = view.getUint32(4, true);
  if (version !== VERSION && version !== GRAPH_ONLY_VERSION)
    throw new HnswFormatError(
      `unsupported version ${version} (this reader knows ${VERSION} and ${GRAPH_ONLY_VERSION})`,
      4,
    );
  const graphOnly = version === GRAPH_ONLY_VERSION;
  const headerBytes = graphOnly ? GRAPH_ONLY_HEADER_BYTES : HEADER_BYTES;
  if (bytes.length < headerBytes)
    throw new HnswFormatError(
      `truncated at offset ${bytes.length}: the version ${version} header needs ${headerBytes} bytes`,
      bytes.length,
    );
  const dim = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  const m = view.getUint32(16, true);
  const maxM0 = view.getUint32(20, true);
  const efConstruction = view.getUint32(24, true);
  const entryPoint = view.getInt32(28, true);
  const maxLevel = view.getInt32(32, true);
  const levelState = view.getUint32(36, true);
  const upperCount = view.getUint32(40, true);
  if (graphOnly && view.getUint32(52, true) !== 0)
    throw new HnswFormatError(`reserved field is ${view.getUint32(52, true)}, expected 0`, 52);
  checkHeader({ dim, count, m, maxM0, efConstruction, entryPoint, maxLevel });
  const levelsAt = headerBytes;
  const links0At = levelsAt + pad4(count);
  const upperAt = links0At + 4 * count * (maxM0 + 1);
  const vectorsAt = upperAt + 4 * upperCount;
  const end = graphOnly ? vectorsAt : vectorsAt + 4 * count * dim;
  const sections: [string, number][] = [
    ['levels', links0At],
    ['level-0 links', upperAt],
    ['upper links', vectorsAt],
  ];
  if (!graphOnly) sections.push(['vectors', end]);
  for (const [name, sectionEnd] of sections) {
    if (bytes.length < sectionEnd)
      throw new HnswFormatError(
        `truncated at offset ${bytes.length}: the ${name} section ends at ${sectionEnd}`,
        bytes.length,
      );
  }
  if (bytes.length > end)
    throw new HnswFormatError(
      `${bytes.length - end} unexpected bytes after the ${graphOnly ? 'upper links' : 'vectors'} section`,
      end,
    );
  const stored = view.getUint32(44, true);
  const computed = graphOnly ? graphOnlyChecksum(bytes) : crc32(bytes.subarray(HEADER_BYTES));
  if (stored !== computed) throw new HnswFormatError(`checksum mismatch: stored ${stored}, computed ${computed}`, 44);
  const levels = bytes.slice(levelsAt, levelsAt + count);
  const links0 = readI32(bytes, links0At, count * (maxM0 + 1));
  const upperLinks = readI32(bytes, upperAt, upperCount);
  const graph = { dim, count, m, maxM0, efConstruction, entryPoint, maxLevel, levelState, levels, links0, upperLinks };
  checkLevels(graph, levelsAt);
  checkLinks(graph, links0At, upperAt);
  if (graphOnly) return { ...graph, vectorsCrc: view.getUint32(48, true) };
  const vectors = readF32(bytes, vectorsAt, count * dim);
  for (let i = 0; i < vectors.length; i++) {
    if (!Number.isFinite(vectors[i]))
      throw new HnswFormatError(`value ${i % dim} of vector ${Math.floor(i / dim)} is not finite`, vectorsAt + 4 * i);
  }
  return { ...graph, vectors };
}

function checkHeader(h: {
  dim: number;
  count: number;
  m: number;
  maxM0: number;
  efConstruction: number;
  entryPoint: number;
  maxLevel: number;
}): void {
  if (h.dim < 1) throw new HnswFormatError(`dim ${h.dim} must be >= 1`, 8);
  if (h.count > 0x7fffffff) throw new HnswFormatError(`count ${h.count} is too large`, 12);
  if (h.m < 2 || h.m > 4096) throw new HnswFormatError(`M ${h.m} must be in 2..4096`, 16);
  if (h.maxM0 < h.m || h.maxM0 > 8192)
    throw new HnswFormatError(`level-0 neighbour limit ${h.maxM0} must be in M..8192`, 20);
  if (h.efConstruction < 1) throw new HnswFormatError(`efConstruction ${h.efConstruction} must be >= 1`, 24);
  if (h.count === 0 ? h.entryPoint !== -1 || h.maxLevel !== -1 : h.entryPoint < 0 || h.entryPoint >= h.count) {
    throw new HnswFormatError(`entry point ${h.entryPoint} out of range for ${h.count} nodes`, 28);
  }
  if (h.count > 0 && (h.maxLevel < 0 || h.maxLevel > MAX_LEVEL))
    throw new HnswFormatError(`max level ${h.maxLevel} must be in 0..${MAX_LEVEL}`, 32);
}

function checkLevels(a: Omit<GraphArrays, 'vectors'>, levelsAt: number): void {
  let blocks = 0;
  for (let node = 0; node < a.count; node++) {
    const level = a.levels[node] ?? 0;
    if (level > a.maxLevel)
      throw new HnswFormatError(`node ${node} has level ${level}, above the max level ${a.maxLevel}`, levelsAt + node);
    blocks += level;
  }
  if (a.count > 0 && a.levels[a.entryPoint] !== a.maxLevel)
    throw new HnswFormatError(
      `entry point ${a.entryPoint} has level ${a.levels[a.entryPoint] ?? 0}, not the max level ${a.maxLevel}`,
      levelsAt + a.entryPoint,
    );
  if (blocks * (a.m + 1) !== a.upperLinks.length)
    throw new HnswFormatError(
      `upper links hold ${a.upperLinks.length} ints, the levels need ${blocks * (a.m + 1)}`,
      40,
    );
}

function checkLinks(a: Omit<GraphArrays, 'vectors'>, links0At: number, upperAt: number): void {
  const stride0 = a.maxM0 + 1;
  for (let node = 0; node < a.count; node++) checkList(a, a.links0, node * stride0, a.maxM0, node, 0, links0At);
  const stride = a.m + 1;
  let at = 0;
  for (let node = 0; node < a.count; node++) {
    const level = a.levels[node] ?? 0;
    for (let lc = 1; lc <= level; lc++, at += stride) checkList(a, a.upperLinks, at, a.m, node, lc, upperAt);
  }
}

function checkList(
  a: Omit<GraphArrays, 'vectors'>,
  links: Int32Array,
  at: number,
  max: number,
  node: number,
  lc: number,
  sectionAt: number,
): void {
  const n = links[at] ?? 0;
  if (n < 0 || n > max)
    throw new HnswFormatError(`node ${node} level ${lc} has ${n} neighbours, the limit is ${max}`, sectionAt + 4 * at);
  for (let j = 1; j <= n; j++) {
    const neighbour = links[at + j] ?? 0;
    if (neighbour < 0 || neighbour >= a.count || neighbour === node || (a.levels[neighbour] ?? 0) < lc) {
      throw new HnswFormatError(
        `neighbour index ${neighbour} of node ${node} on level ${lc} is out of range (${a.count} nodes; a neighbour must exist on that level and not be the node itself)`,
        sectionAt + 4 * (at + j),
      );
    }
  }
}

function pad4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

function writeI32(view: DataView, start: number, values: Int32Array): number {
  let at = start;
  for (let i = 0; i < values.length; i++, at += 4) view.setInt32(at, values[i] ?? 0, true);
  return at;
}

function readI32(bytes: Uint8Array, at: number, n: number): Int32Array {
  if (LITTLE_ENDIAN_HOST)
    return new Int32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * n));
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 4 * n);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getInt32(4 * i, true);
  return out;
}

function readF32(bytes: Uint8Array, at: number, n: number): Float32Array {
  if (LITTLE_ENDIAN_HOST)
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * n));
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 4 * n);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(4 * i, true);
  return out;
}
