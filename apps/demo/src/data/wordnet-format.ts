// The WordNet graph as the demo ships it (browser-safe): wordnet.json holds { synsetIds, lemmas } and
// wordnet-csr.bin the relation-weighted CSR graph. Layout of wordnet-csr.bin, little-endian:
//   u32 magic 0x4E574454 (bytes "T D W N"), u32 version = 1, u32 nodes, u32 edges, u32 CRC-32 of every byte after
//   these 20, then rowPtr (nodes + 1) i32, colIdx (edges) i32, weights (edges) f32.
import { crc32 } from '@tandem/core';
import { DemoDataError } from './demo-data-error.ts';
import { DATA_FILES } from './manifest.ts';

const MAGIC = 0x4e574454;
const VERSION = 1;
const HEADER_BYTES = 20;

/** The WordNet graph in the page: node i is synsetIds[i] with words lemmas[i]. */
export interface DemoWordNet {
  /** "<pos>:<offset>" per node, e.g. "n:02086723". */
  readonly synsetIds: readonly string[];
  /** Each node's words. */
  readonly lemmas: readonly (readonly string[])[];
  /** Row pointers [nodes + 1]. */
  readonly rowPtr: Int32Array;
  /** Edge targets. */
  readonly colIdx: Int32Array;
  /** Edge weights. */
  readonly weights: Float32Array;
}

/** wordnet-csr.bin's bytes for a CSR graph. */
export function encodeWordNetCsr(rowPtr: Int32Array, colIdx: Int32Array, weights: Float32Array): Uint8Array {
  const nodes = rowPtr.length - 1;
  const edges = colIdx.length;
  const bytes = new Uint8Array(HEADER_BYTES + 4 * (nodes + 1 + 2 * edges));
  const view = new DataView(bytes.buffer);
  let at = HEADER_BYTES;
  for (const v of rowPtr) at = put(view, at, v, true);
  for (const v of colIdx) at = put(view, at, v, true);
  for (const v of weights) at = put(view, at, v, false);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, nodes, true);
  view.setUint32(12, edges, true);
  view.setUint32(16, crc32(bytes.subarray(HEADER_BYTES)), true);
  return bytes;
}

function put(view: DataView, at: number, value: number, integer: boolean): number {
  if (integer) view.setInt32(at, value, true);
  else view.setFloat32(at, value, true);
  return at + 4;
}

/** Reads wordnet-csr.bin; throws DemoDataError on a bad header, size or checksum (the graph itself is checked by CsrGraph.fromCsr). */
export function decodeWordNetCsr(
  bytes: Uint8Array,
  expectedNodes: number,
  expectedEdges: number,
): { rowPtr: Int32Array; colIdx: Int32Array; weights: Float32Array } {
  const file = DATA_FILES.wordnetCsr;
  if (bytes.byteLength < HEADER_BYTES)
    throw new DemoDataError(file, `${bytes.byteLength} bytes is shorter than the ${HEADER_BYTES}-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new DemoDataError(file, 'bad magic (not a demo WordNet graph)');
  if (view.getUint32(4, true) !== VERSION)
    throw new DemoDataError(file, `version ${view.getUint32(4, true)} is not ${VERSION}`);
  const nodes = view.getUint32(8, true);
  const edges = view.getUint32(12, true);
  if (nodes !== expectedNodes || edges !== expectedEdges)
    throw new DemoDataError(
      file,
      `holds ${nodes} nodes and ${edges} edges; the manifest says ${expectedNodes} and ${expectedEdges}`,
    );
  const expectedBytes = HEADER_BYTES + 4 * (nodes + 1 + 2 * edges);
  if (bytes.byteLength !== expectedBytes)
    throw new DemoDataError(
      file,
      `is ${bytes.byteLength} bytes; ${nodes} nodes and ${edges} edges need ${expectedBytes}`,
    );
  if (crc32(bytes.subarray(HEADER_BYTES)) !== view.getUint32(16, true))
    throw new DemoDataError(file, 'checksum mismatch (the file is corrupt)');
  const body = bytes.slice(HEADER_BYTES);
  return {
    rowPtr: new Int32Array(body.buffer, 0, nodes + 1),
    colIdx: new Int32Array(body.buffer, 4 * (nodes + 1), edges),
    weights: new Float32Array(body.buffer, 4 * (nodes + 1 + edges), edges),
  };
}

/** Checks wordnet.json's { synsetIds, lemmas } against the node count; throws DemoDataError naming the bad entry. */
export function parseWordNetMeta(value: unknown, nodes: number): Pick<DemoWordNet, 'synsetIds' | 'lemmas'> {
  const file = DATA_FILES.wordnetMeta;
  if (typeof value !== 'object' || value === null)
    throw new DemoDataError(file, 'must be an object { synsetIds, lemmas }');
  const synsetIds: unknown = Reflect.get(value, 'synsetIds');
  const lemmas: unknown = Reflect.get(value, 'lemmas');
  if (!Array.isArray(synsetIds) || synsetIds.length !== nodes)
    throw new DemoDataError(file, `synsetIds must be an array of ${nodes} strings`);
  if (!Array.isArray(lemmas) || lemmas.length !== nodes)
    throw new DemoDataError(file, `lemmas must be an array of ${nodes} arrays`);
  const ids: string[] = [];
  const words: string[][] = [];
  for (let i = 0; i < nodes; i++) {
    const id: unknown = synsetIds[i];
    if (typeof id !== 'string' || !/^[nvar]:\d{8}$/.test(id))
      throw new DemoDataError(file, `synsetIds[${i}] ${JSON.stringify(id)} is not "<pos>:<8 digits>"`);
    const list: unknown = lemmas[i];
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((w): w is string => typeof w === 'string' && w.length > 0)
    ) {
      throw new DemoDataError(file, `lemmas[${i}] must be a non-empty array of non-empty strings`);
    }
    ids.push(id);
    words.push(list);
  }
  return { synsetIds: ids, lemmas: words };
}

/** Checks words.json: `count` distinct non-empty strings; throws DemoDataError naming the bad entry. */
export function parseWordList(value: unknown, count: number): string[] {
  const file = DATA_FILES.words;
  if (!Array.isArray(value) || value.length !== count)
    throw new DemoDataError(file, `must be an array of ${count} words (the manifest's count)`);
  const seen = new Set<string>();
  const words: string[] = [];
  for (let i = 0; i < value.length; i++) {
    const w: unknown = value[i];
    if (typeof w !== 'string' || w.length === 0)
      throw new DemoDataError(file, `entry ${i} ${JSON.stringify(w)} is not a non-empty string`);
    if (seen.has(w)) throw new DemoDataError(file, `entry ${i} ${JSON.stringify(w)} is a repeat`);
    seen.add(w);
    words.push(w);
  }
  return words;
}
