// @tandem/datasets: real data for the memory workloads, loaded and validated by code in the project (Node only).
export { DatasetError } from './errors.ts';
export type { DocChunks, WordNetGraph, WordVectors } from './types.ts';
export { loadWinkEmbeddings, WINK_DIM, WINK_PACKAGE, WINK_WORD_COUNT, type WinkOptions } from './wink/load.ts';
export { FIORI_PACKAGE, loadFioriDocs, type FioriOptions } from './fiori/load.ts';
export { loadWordNet, type WordNetOptions, type WordNetPos } from './wordnet/load.ts';
export { findSynsets } from './wordnet/find.ts';
export { PackedWordNet } from './wordnet/packed.ts';
export { RELATIONS, type Relation } from './wordnet/relations.ts';
