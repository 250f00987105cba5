// Brute-force vector search on the engine.
export type { SearchHit } from './search-hit.ts';
export { VectorOps, type SearchOptions, type VectorOpsOptions } from './vector-ops.ts';
