// tandem for browsers and workers (Node resolves the "node" condition to node.ts instead).
import type { Engine } from '@tandem/core';
import { createEngineWith, type CreateEngineOptions } from './create-engine.ts';
import { BROWSER_BACKENDS } from './default-backends.ts';
import { hostIndexedDb, IndexedDbProfileStore } from './profile-indexeddb-store.ts';

export * from './public-api.ts';
export { BROWSER_BACKENDS, BROWSER_WEBGPU_FACTORY } from './default-backends.ts';
export { IndexedDbProfileStore } from './profile-indexeddb-store.ts';

/**
 * An engine over the backends this browser has (WebGPU when navigator.gpu exists, then the CPU ones), starting from
 * the profile IndexedDB holds for these devices (see CreateEngineOptions.profile).
 */
export function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  return createEngineWith(BROWSER_BACKENDS, browserProfileStore, options);
}

/** IndexedDB's store where the host has IndexedDB; else none. */
function browserProfileStore(): IndexedDbProfileStore | undefined {
  const factory = hostIndexedDb();
  return factory === undefined ? undefined : new IndexedDbProfileStore(factory);
}
