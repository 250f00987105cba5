// tandem for Node: the same API as index.ts, with Node's default backends (ROCm and Dawn when installed).
import type { Engine } from '@tandem/core';
import { createEngineWith, type CreateEngineOptions } from './create-engine.ts';
import { NODE_BACKENDS } from './node-backends.ts';
import { defaultProfileDir, FileProfileStore } from './profile-file-store.ts';

export * from './public-api.ts';
export { NODE_BACKENDS, NODE_WEBGPU_FACTORY, ROCM_FACTORY } from './node-backends.ts';
export { defaultProfileDir, FileProfileStore } from './profile-file-store.ts';

/**
 * An engine over the backends this Node process has, starting from the profile saved under the user's cache folder
 * for these devices (see CreateEngineOptions.profile). TANDEM_FORCE_CPU=1 keeps everything on the CPU.
 */
export function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  return createEngineWith(NODE_BACKENDS, () => new FileProfileStore(defaultProfileDir()), options);
}
