// tandem for Node: the same API as index.ts, with Node's default backends (Dawn for WebGPU, ROCm when built).
import type { Engine } from '@tandem/core';
import { createEngineWith, type CreateEngineOptions } from './create-engine.ts';
import { NODE_BACKENDS } from './node-backends.ts';

export * from '@tandem/core';
export type { CreateEngineOptions, FactoryFailure } from './create-engine.ts';
export { REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory } from './default-backends.ts';
export { NODE_BACKENDS } from './node-backends.ts';
export { forceCpuFromEnv, readEnv } from './env.ts';

/** An engine over the backends this Node process has. TANDEM_FORCE_CPU=1 keeps everything on the CPU. */
export function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  return createEngineWith(NODE_BACKENDS, options);
}
