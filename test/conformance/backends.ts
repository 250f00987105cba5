// The backends the conformance suite runs. Each backend registers with one line in CANDIDATES; one whose
// init() fails (no GPU, no WebGPU adapter, no toolchain) is skipped with a note naming it and the reason.
import { errorMessage, type CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { RocmBackend } from '@tandem/rocm';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';

/** WebGPU through Dawn: on SwiftShader (Debian's chromium) unless TANDEM_TEST_GPU=native picks the machine's GPU. */
function webGpu(): CapableBackend {
  if (process.env['TANDEM_TEST_GPU'] !== 'native') {
    const software = useSwiftShader();
    if (!software.ok) throw new Error(software.reason);
  }
  return createNodeWebGpuBackend();
}

/** A backend to try: its name and how to build it (may import lazily). */
interface Candidate {
  /** Backend name, for the skip note. */
  readonly name: string;
  /** Builds the backend; init() is called by availableBackends. */
  readonly create: () => CapableBackend | Promise<CapableBackend>;
}

/** One line per backend. */
const CANDIDATES: readonly Candidate[] = [
  { name: 'reference', create: () => new ReferenceBackend() },
  { name: 'wasm', create: () => new WasmBackend() },
  { name: 'webgpu', create: webGpu },
  { name: 'rocm', create: rocm },
];

/**
 * The HIP backend: the machine's GPU when a built addon finds one (TANDEM_TEST_GPU=native), else the same
 * kernels on the CPU emulation of HIP (build.mjs --variant emulated), so CI runs every HIP kernel too.
 */
function rocm(): CapableBackend {
  if (process.env['TANDEM_TEST_GPU'] === 'native') return new RocmBackend();
  const emulated = fileURLToPath(new URL('../../packages/rocm/build/emulated/tandem_rocm.node', import.meta.url));
  if (!existsSync(emulated)) throw new Error(`no emulated HIP build at ${emulated} (node packages/rocm/scripts/build.mjs --variant emulated)`);
  return new RocmBackend({ addonPath: emulated });
}

/** Every candidate backend that builds and initialises on this machine, initialised. */
export async function availableBackends(): Promise<CapableBackend[]> {
  const ready: CapableBackend[] = [];
  for (const candidate of CANDIDATES) {
    try {
      const backend = await candidate.create();
      const init = await backend.init();
      if (init.ok) ready.push(backend);
      else console.warn(`[conformance] skipping backend '${candidate.name}': ${init.reason}`);
    } catch (error) {
      console.warn(`[conformance] skipping backend '${candidate.name}': ${errorMessage(error)}`);
    }
  }
  return ready;
}
