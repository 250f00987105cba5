// tandem for browsers and workers (Node resolves the "node" condition to node.ts instead).
import type { Engine } from '@tandem/core';
import { createEngineWith, type CreateEngineOptions } from './create-engine.ts';
import { BROWSER_BACKENDS } from './default-backends.ts';

export * from '@tandem/core';
export type { CreateEngineOptions, FactoryFailure } from './create-engine.ts';
export { BROWSER_BACKENDS, REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory } from './default-backends.ts';
export { forceCpuFromEnv, readEnv } from './env.ts';

/** An engine over the backends this browser has (WebGPU when navigator.gpu exists, then the CPU ones). */
export function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  return createEngineWith(BROWSER_BACKENDS, options);
}
