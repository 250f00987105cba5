// Loads and validates the prepared data in the page: the manifest, the words with their HNSW index (which holds
// the unit vectors), and the WordNet graph. Any problem throws DemoDataError naming the file.
import { HnswIndex, CsrGraph } from '@tandem/memory';
import { DemoDataError } from './demo-data-error.ts';
import { fetchBytes, fetchJson } from './fetch-data.ts';
import { DATA_FILES, parseManifest, type DemoManifest } from './manifest.ts';
import { decodeWordNetCsr, parseWordList, parseWordNetMeta, type DemoWordNet } from './wordnet-format.ts';

/** The word vectors in the page. */
export interface DemoWords {
  /** Words, most frequent first; row i of `vectors` is words[i]. */
  readonly words: readonly string[];
  /** Word -> row. */
  readonly rowOf: ReadonlyMap<string, number>;
  /** Floats per vector. */
  readonly dim: number;
  /** words.length x dim unit vectors (from the index), row-major. */
  readonly vectors: Float32Array;
  /** The HNSW index over them. */
  readonly hnsw: HnswIndex;
}

/** The WordNet graph in the page, with its CsrGraph for spreadActivation. */
export interface DemoGraph extends DemoWordNet {
  /** The validated graph. */
  readonly graph: CsrGraph;
}

/** manifest.json, checked. */
export async function loadManifest(): Promise<DemoManifest> {
  return parseManifest(await fetchJson(DATA_FILES.manifest));
}

/** words.json and hnsw.bin, checked against each other and the manifest. */
export async function loadWords(manifest: DemoManifest): Promise<DemoWords> {
  const [wordsJson, hnswBytes] = await Promise.all([fetchJson(DATA_FILES.words), fetchBytes(DATA_FILES.hnsw, manifest.hnsw.bytes)]);
  const words = parseWordList(wordsJson, manifest.words.count);
  let hnsw: HnswIndex;
  try {
    hnsw = await HnswIndex.load(hnswBytes);
  } catch (error) {
    throw new DemoDataError(DATA_FILES.hnsw, error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (hnsw.count !== words.length || hnsw.dim !== manifest.words.dim) {
    throw new DemoDataError(DATA_FILES.hnsw, `indexes ${hnsw.count} vectors of ${hnsw.dim} floats; words.json has ${words.length} words of ${manifest.words.dim}`);
  }
  const vectors = new Float32Array(words.length * hnsw.dim);
  for (let i = 0; i < words.length; i++) vectors.set(hnsw.vector(i), i * hnsw.dim);
  const rowOf = new Map<string, number>();
  for (let i = 0; i < words.length; i++) rowOf.set(words[i] ?? '', i);
  return { words, rowOf, dim: hnsw.dim, vectors, hnsw };
}

/** wordnet.json and wordnet-csr.bin, checked (CsrGraph.fromCsr checks every edge). */
export async function loadGraph(manifest: DemoManifest): Promise<DemoGraph> {
  const { nodes, edges } = manifest.wordnet;
  const [metaJson, csrBytes] = await Promise.all([fetchJson(DATA_FILES.wordnetMeta), fetchBytes(DATA_FILES.wordnetCsr)]);
  const meta = parseWordNetMeta(metaJson, nodes);
  const csr = decodeWordNetCsr(csrBytes, nodes, edges);
  let graph: CsrGraph;
  try {
    graph = CsrGraph.fromCsr(csr.rowPtr, csr.colIdx, csr.weights);
  } catch (error) {
    throw new DemoDataError(DATA_FILES.wordnetCsr, error instanceof Error ? error.message : String(error), { cause: error });
  }
  return { ...meta, ...csr, graph };
}
