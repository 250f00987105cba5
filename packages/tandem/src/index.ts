export * from '@tandem/core';
export { createEngine, type CreateEngineOptions, type FactoryFailure } from './create-engine.ts';
export { DEFAULT_BACKENDS, type BackendFactory } from './default-backends.ts';
export { forceCpuFromEnv, readEnv } from './env.ts';
