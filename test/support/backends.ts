// The real backends the tests run and how each starts here: wasm (the built kernels), webgpu (Dawn on SwiftShader
// from Debian's chromium; TANDEM_TEST_GPU=native for the machine's GPU) and rocm (the HIP kernels on the CPU
// emulation; TANDEM_TEST_GPU=native for the built addon's device). A backend that cannot start goes through
// requireOrSkip: under CI the test file fails naming it and why; elsewhere one [skip] line and the caller skips.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage, type CapableBackend } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend } from '@tandem/webgpu/node';
import { webGpuMissing } from '../../packages/webgpu/src/test-support/gpu.ts';
import { nativeGpu, requireBackend, type TestBackendName } from './requirements.ts';

export type { TestBackendName } from './requirements.ts';

/** Every one of them, in the order suites list them. */
export const TEST_BACKENDS: readonly TestBackendName[] = ['wasm', 'webgpu', 'rocm'];

/** The addon built over the CPU emulation of HIP. */
export const EMULATED_ROCM_ADDON = fileURLToPath(
  new URL('../../packages/rocm/build/emulated/tandem_rocm.node', import.meta.url),
);

/** Why `name` cannot start here before trying it (a missing system part), or undefined; sets up SwiftShader for webgpu. */
function prerequisiteMissing(name: TestBackendName): string | undefined {
  if (name === 'webgpu') return webGpuMissing();
  if (name === 'rocm' && !nativeGpu() && !existsSync(EMULATED_ROCM_ADDON))
    return `no emulated HIP build at ${EMULATED_ROCM_ADDON}`;
  return undefined;
}

/**
 * Whether `name`'s system parts are here (SwiftShader set up for webgpu), for tests that build the backend
 * themselves (inside an Engine or a fault wrapper): `describe.skipIf(!needBackend('webgpu'))`.
 */
export function needBackend(name: TestBackendName): boolean {
  return requireBackend(name, prerequisiteMissing(name));
}

/** needBackend for each of `names` (every one checked, so each missing one has its line or CI failure): all there. */
export function needBackends(...names: TestBackendName[]): boolean {
  return names.map(needBackend).every((ok) => ok);
}

/** A new, not yet initialised backend of that name, as the tests run it here. */
export function createBackend(name: TestBackendName): CapableBackend {
  if (name === 'wasm') return new WasmBackend();
  if (name === 'webgpu') return createNodeWebGpuBackend();
  return nativeGpu() ? new RocmBackend() : new RocmBackend({ addonPath: EMULATED_ROCM_ADDON });
}

/**
 * Creates (`create`, default createBackend) and initialises `name`; undefined when it cannot start and this is not
 * CI (after its [skip] line). Under CI a backend that does not start throws, naming it and its reason.
 */
export async function startBackend<B extends CapableBackend>(
  name: TestBackendName,
  create: () => B,
): Promise<B | undefined>;
export async function startBackend(name: TestBackendName): Promise<CapableBackend | undefined>;
export async function startBackend(
  name: TestBackendName,
  create: () => CapableBackend = () => createBackend(name),
): Promise<CapableBackend | undefined> {
  if (!needBackend(name)) return undefined;
  let missing: string;
  let backend: CapableBackend | undefined;
  try {
    backend = create();
    const init = await backend.init();
    if (init.ok) return backend;
    missing = `init() failed: ${init.reason}`;
  } catch (error) {
    missing = `could not be created: ${errorMessage(error)}`;
  }
  await backend?.dispose();
  requireBackend(name, missing);
  return undefined;
}

/** One started backend, or undefined where it was skipped. */
export interface StartedBackend {
  /** Which backend. */
  readonly name: TestBackendName;
  /** The initialised backend; undefined when it could not start (outside CI only). */
  readonly backend: CapableBackend | undefined;
}

/** Starts every test backend (wasm, webgpu, rocm), one entry each; a missing one is skipped or fails as above. */
export async function startTestBackends(): Promise<StartedBackend[]> {
  const started: StartedBackend[] = [];
  for (const name of TEST_BACKENDS) started.push({ name, backend: await startBackend(name) });
  return started;
}

/** `value`, which a skipped describe block never reaches without it; throws naming `name` if it is absent. */
export function started<T>(name: string, value: T | undefined): T {
  if (value === undefined) throw new Error(`${name} did not start`);
  return value;
}
