// tandem for browsers and workers (Node resolves the "node" condition to node.ts instead).
import type { Engine } from '@tandem/core';
import { createEngineWith, type CreateEngineOptions } from './create-engine.ts';
import { BROWSER_BACKENDS } from './default-backends.ts';

export * from './public-api.ts';
export { BROWSER_BACKENDS, BROWSER_WEBGPU_FACTORY } from './default-backends.ts';

/** An engine over the backends this browser has (WebGPU when navigator.gpu exists, then the CPU ones). */
export function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  return createEngineWith(BROWSER_BACKENDS, options);
}
