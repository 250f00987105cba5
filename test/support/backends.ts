// The real backends the tests run and how each starts here: wasm (the built kernels), webgpu (Dawn on SwiftShader
// from Debian's chromium; TANDEM_TEST_GPU=native for the machine's GPU) and rocm (the HIP kernels on the CPU
// emulation; TANDEM_TEST_GPU=native for the built addon's device). A backend that cannot start goes through
// requireOrSkip: under CI the test file fails naming it and why; elsewhere one [skip] line and the caller skips.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage, type CapableBackend } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { requireOrSkip } from './requirements.ts';

/** The backends besides the reference that a test may need. */
export type TestBackendName = 'wasm' | 'webgpu' | 'rocm';

/** Every one of them, in the order suites list them. */
export const TEST_BACKENDS: readonly TestBackendName[] = ['wasm', 'webgpu', 'rocm'];

/** The addon built over the CPU emulation of HIP. */
export const EMULATED_ROCM_ADDON = fileURLToPath(new URL('../../packages/rocm/build/emulated/tandem_rocm.node', import.meta.url));

/** How to make each backend available on this machine. */
export const HOW_TO_ENABLE: Readonly<Record<TestBackendName, string>> = {
  wasm: 'npm run build -w @tandem/wasm',
  webgpu: 'apt-get install chromium, which brings SwiftShader (/usr/lib/chromium/vk_swiftshader_icd.json); or TANDEM_TEST_GPU=native on a GPU machine',
  rocm: 'node packages/rocm/scripts/build.mjs --variant emulated (g++ only); or TANDEM_TEST_GPU=native with a built addon on a GPU machine',
};

/** True when the tests use the machine's own GPU instead of SwiftShader and the HIP emulation. */
export function nativeGpu(): boolean {
  return process.env['TANDEM_TEST_GPU'] === 'native';
}

/** Why `name` cannot start here before trying it (a missing system part), or undefined; sets up SwiftShader for webgpu. */
function prerequisiteMissing(name: TestBackendName): string | undefined {
  if (name === 'webgpu') {
    if (nativeGpu()) return undefined;
    const software = useSwiftShader();
    return software.ok ? undefined : software.reason;
  }
  if (name === 'rocm' && !nativeGpu() && !existsSync(EMULATED_ROCM_ADDON)) return `no emulated HIP build at ${EMULATED_ROCM_ADDON}`;
  return undefined;
}

/** The one skip decision for a backend: true when usable, false (one [skip] line) outside CI, throws under CI. */
export function requireBackend(name: TestBackendName, missing: string | undefined): boolean {
  return requireOrSkip(`${name} backend`, missing, HOW_TO_ENABLE[name]);
}

/**
 * Whether `name`'s system parts are here (SwiftShader set up for webgpu), for tests that build the backend
 * themselves (inside an Engine or a fault wrapper): `describe.skipIf(!needBackend('webgpu'))`.
 */
export function needBackend(name: TestBackendName): boolean {
  return requireBackend(name, prerequisiteMissing(name));
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
export async function startBackend<B extends CapableBackend>(name: TestBackendName, create: () => B): Promise<B | undefined>;
export async function startBackend(name: TestBackendName): Promise<CapableBackend | undefined>;
export async function startBackend(name: TestBackendName, create: () => CapableBackend = () => createBackend(name)): Promise<CapableBackend | undefined> {
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
