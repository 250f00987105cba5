// One search result, shared by every search in @tandem/memory (brute force, batched, HNSW).

/** A stored vector found by a search: its row index and its cosine similarity to the query (higher is closer). */
export interface SearchHit {
  /** Row of the stored vector (0-based, in insertion order). */
  index: number;
  /** Cosine similarity to the query, in [-1, 1]. */
  score: number;
}
