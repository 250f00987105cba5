// Loads and validates the prepared data (in the engine worker): the manifest, the words with their f16 unit vectors
// and the HNSW graph built on them, and the WordNet graph. Any problem throws DemoDataError naming the file.
import { HnswIndex, CsrGraph } from '@tandem/memory';
import { DemoDataError } from './demo-data-error.ts';
import { fetchBytes, fetchJson, type FetchOptions } from './fetch-data.ts';
import { DATA_FILES, parseManifest, type DemoManifest } from './manifest.ts';
import { decodeVectors } from './vectors-format.ts';
import { decodeWordNetCsr, parseWordList, parseWordNetMeta, type DemoWordNet } from './wordnet-format.ts';

/** The word vectors. */
export interface DemoWords {
  /** Words, most frequent first; row i of `vectors` is words[i]. */
  readonly words: readonly string[];
  /** Word -> row. */
  readonly rowOf: ReadonlyMap<string, number>;
  /** Floats per vector. */
  readonly dim: number;
  /** words.length x dim unit vectors (rounded to f16), row-major. */
  readonly vectors: Float32Array;
  /** The HNSW index over them. */
  readonly hnsw: HnswIndex;
}

/** The WordNet graph, with its CsrGraph for spreadActivation. */
export interface DemoGraph extends DemoWordNet {
  /** The validated graph. */
  readonly graph: CsrGraph;
}

/** manifest.json, checked. */
export async function loadManifest(options: FetchOptions = {}): Promise<DemoManifest> {
  return parseManifest(
    await fetchJson(DATA_FILES.manifest, undefined, { ...(options.base === undefined ? {} : { base: options.base }) }),
  );
}

/** words.json, vectors.bin and hnsw-graph.bin, checked against each other and the manifest. */
export async function loadWords(manifest: DemoManifest, options: FetchOptions = {}): Promise<DemoWords> {
  const [wordsJson, vectorBytes, hnswBytes] = await Promise.all([
    fetchJson(DATA_FILES.words, manifest.sizes.words, options),
    fetchBytes(DATA_FILES.vectors, manifest.sizes.vectors, options),
    fetchBytes(DATA_FILES.hnsw, manifest.hnsw.bytes, options),
  ]);
  const words = parseWordList(wordsJson, manifest.words.count);
  const vectors = decodeVectors(vectorBytes, manifest.words.count, manifest.words.dim);
  let hnsw: HnswIndex;
  try {
    hnsw = await HnswIndex.load(hnswBytes, { vectors });
  } catch (error) {
    throw new DemoDataError(DATA_FILES.hnsw, error instanceof Error ? error.message : String(error), { cause: error });
  }
  const rowOf = new Map<string, number>();
  for (let i = 0; i < words.length; i++) rowOf.set(words[i] ?? '', i);
  return { words, rowOf, dim: manifest.words.dim, vectors, hnsw };
}

/** wordnet.json and wordnet-csr.bin, checked (CsrGraph.fromCsr checks every edge). */
export async function loadGraph(manifest: DemoManifest, options: FetchOptions = {}): Promise<DemoGraph> {
  const { nodes, edges } = manifest.wordnet;
  const [metaJson, csrBytes] = await Promise.all([
    fetchJson(DATA_FILES.wordnetMeta, manifest.sizes.wordnetMeta, options),
    fetchBytes(DATA_FILES.wordnetCsr, manifest.sizes.wordnetCsr, options),
  ]);
  const meta = parseWordNetMeta(metaJson, nodes);
  const csr = decodeWordNetCsr(csrBytes, nodes, edges);
  let graph: CsrGraph;
  try {
    graph = CsrGraph.fromCsr(csr.rowPtr, csr.colIdx, csr.weights);
  } catch (error) {
    throw new DemoDataError(DATA_FILES.wordnetCsr, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
  return { ...meta, ...csr, graph };
}
