// HNSW approximate nearest-neighbour search (cosine), with a documented binary format (README.md).
export {
  HnswIndex,
  type HnswBatchOptions,
  type HnswBuildOptions,
  type HnswLoadOptions,
  type HnswSaveOptions,
  type HnswSearchOptions,
} from './hnsw-index.ts';
export { HnswCapacityError, HnswFormatError, HnswVectorsMismatchError } from './errors.ts';
export { EXACT_MIN_QUERIES, type BatchMode } from './exact-batch.ts';
