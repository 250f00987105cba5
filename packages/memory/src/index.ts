// @tandem/memory: memory-graph workloads on the Tandem engine (vector search, batching, spreading activation, HNSW).
// Each area exports from its own folder; see the folder's index.ts.
export {};
