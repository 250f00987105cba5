// @tandem/memory: memory-graph workloads on the Tandem engine (vector search, batching, spreading activation, HNSW).
export * from './vectors/index.ts';
export * from './batch/index.ts';
export * from './spreading/index.ts';
export * from './hnsw/index.ts';
