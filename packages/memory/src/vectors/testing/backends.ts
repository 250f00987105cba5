// Test support: one engine per backend that initialises here (reference, wasm, WebGPU on SwiftShader), each
// pinned to its single backend, so the same call can be compared across backends.
import { Engine, errorMessage, type CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';

/** An engine over one backend, with the backend's name. */
export interface SingleBackendEngine {
  /** Backend name. */
  readonly name: string;
  /** Engine whose only backend is that one. */
  readonly engine: Engine;
}

/** WebGPU through Dawn on SwiftShader (Debian's chromium); throws when SwiftShader is absent. */
function swiftShaderBackend(): CapableBackend {
  const software = useSwiftShader();
  if (!software.ok) throw new Error(software.reason);
  return createNodeWebGpuBackend();
}

/** Engines for reference, wasm and (when it initialises) WebGPU; a backend that cannot start is skipped with a warning. */
export async function singleBackendEngines(): Promise<SingleBackendEngine[]> {
  const makers: Array<[string, () => CapableBackend]> = [
    ['reference', () => new ReferenceBackend()],
    ['wasm', () => new WasmBackend()],
    ['webgpu', swiftShaderBackend],
  ];
  const engines: SingleBackendEngine[] = [];
  for (const [name, make] of makers) {
    try {
      const engine = await Engine.create({ backends: [make()] });
      const status = engine.backends()[0];
      if (status?.available === true) engines.push({ name, engine });
      else {
        console.warn(`[memory tests] skipping backend '${name}': ${status?.unavailableReason ?? 'unknown'}`);
        await engine.dispose();
      }
    } catch (error) {
      console.warn(`[memory tests] skipping backend '${name}': ${errorMessage(error)}`);
    }
  }
  return engines;
}
