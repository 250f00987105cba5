// Concurrent searches gathered into batches.
export { BatchEngine, type BatchEngineOptions, type BatchSearchTarget, type BatchStats } from './batch-engine.ts';
export { BatchEngineClosedError, BatchSearchError } from './errors.ts';
