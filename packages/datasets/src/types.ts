// The shapes the loaders return (shared with @tandem/memory and the apps; names fixed by the API contract).

/** Word vectors: row i of `vectors` (dim floats, row-major) belongs to words[i]. */
export interface WordVectors {
  /** The words, in the source's order. */
  words: string[];
  /** Floats per vector. */
  dim: number;
  /** words.length * dim floats, row-major, as stored in the source (not normalised). */
  vectors: Float32Array;
}

/** Documentation chunks with their embeddings: row i of `vectors` belongs to ids[i] / texts[i]. */
export interface DocChunks {
  /** Chunk ids, unique. */
  ids: string[];
  /** Chunk texts. */
  texts: string[];
  /** Floats per vector. */
  dim: number;
  /** ids.length * dim floats, row-major. */
  vectors: Float32Array;
}

/** WordNet synsets as a weighted directed graph in CSR form (node i = synsetIds[i]). */
export interface WordNetGraph {
  /** "<pos>:<8-digit offset>", e.g. "n:02086723" (dog in WordNet 3.1); pos is the data file's (adjective satellites are "a:"). */
  synsetIds: string[];
  /** Each synset's words, as in WordNet with '_' turned into ' ' (case kept, adjective markers removed). */
  lemmas: string[][];
  /** Each synset's gloss (definition and examples). */
  glosses: string[];
  /** Row pointers [nodes + 1]: node i's edges are rowPtr[i] .. rowPtr[i + 1] - 1. */
  rowPtr: Int32Array;
  /** Target node of each edge. */
  colIdx: Int32Array;
  /** Weight of each edge, from its relation (see RELATIONS in wordnet/relations.ts). */
  weights: Float32Array;
  /** Relation code of each edge (index into RELATIONS). */
  relationOf?: Uint8Array;
}
