// Test support: one engine per backend under test (wasm, WebGPU on SwiftShader), each pinned to its single
// backend, so the same call runs on each and is compared with @tandem/reference. A backend that cannot start is a
// visible skip outside CI and a failure under CI (test/support/backends.ts).
import { Engine } from '@tandem/core';
import { startBackend, type TestBackendName } from '../../../../../test/support/backends.ts';

/** An engine over one backend, with the backend's name. */
export interface SingleBackendEngine {
  /** Backend name. */
  readonly name: TestBackendName;
  /** Engine whose only backend is that one; undefined where the backend was skipped. */
  readonly engine: Engine | undefined;
}

/** Engines for wasm and WebGPU, one each (`describe.skipIf(engine === undefined)` per backend). */
export async function singleBackendEngines(
  names: readonly TestBackendName[] = ['wasm', 'webgpu'],
): Promise<SingleBackendEngine[]> {
  const engines: SingleBackendEngine[] = [];
  for (const name of names) {
    const backend = await startBackend(name);
    engines.push({ name, engine: backend === undefined ? undefined : await Engine.create({ backends: [backend] }) });
  }
  return engines;
}
