// The four kernel builds and which one a host can run. The `new URL('…', import.meta.url)` literals are what
// Vite recognises to ship the .wasm files as assets; `distUrl` overrides the folder (tests, custom hosting).
import { webAssembly } from './wasm-api.ts';

/** One compiled variant of wasm-kernels/ (see scripts/build.mjs). */
export interface WasmBuild {
  /** Build name, as in build.mjs. */
  readonly name: 'simd' | 'relaxed' | 'simd-threads' | 'relaxed-threads';
  /** File name in dist/. */
  readonly file: string;
  /** Uses relaxed-SIMD instructions (f32x4.relaxed_madd). */
  readonly relaxed: boolean;
  /** Imports shared memory (worker pool). */
  readonly threads: boolean;
  /** Where the file is when no distUrl is given. */
  readonly defaultUrl: () => URL;
}

/** Every build, plain first. */
export const WASM_BUILDS: readonly WasmBuild[] = [
  {
    name: 'simd',
    file: 'tandem-simd.wasm',
    relaxed: false,
    threads: false,
    defaultUrl: () => new URL('../dist/tandem-simd.wasm', import.meta.url),
  },
  {
    name: 'relaxed',
    file: 'tandem-relaxed.wasm',
    relaxed: true,
    threads: false,
    defaultUrl: () => new URL('../dist/tandem-relaxed.wasm', import.meta.url),
  },
  {
    name: 'simd-threads',
    file: 'tandem-simd-threads.wasm',
    relaxed: false,
    threads: true,
    defaultUrl: () => new URL('../dist/tandem-simd-threads.wasm', import.meta.url),
  },
  {
    name: 'relaxed-threads',
    file: 'tandem-relaxed-threads.wasm',
    relaxed: true,
    threads: true,
    defaultUrl: () => new URL('../dist/tandem-relaxed-threads.wasm', import.meta.url),
  },
];

/** The URL of a build: in distUrl (a folder URL ending in '/') when given, else next to this package's dist/. */
export function buildUrl(build: WasmBuild, distUrl: URL | undefined): URL {
  return distUrl === undefined ? build.defaultUrl() : new URL(build.file, distUrl);
}

/** The build for a choice of features. */
export function pickBuild(relaxed: boolean, threads: boolean): WasmBuild {
  const build = WASM_BUILDS.find((b) => b.relaxed === relaxed && b.threads === threads);
  if (build === undefined) throw new Error(`no wasm build for relaxed=${relaxed} threads=${threads}`);
  return build;
}

// (module (func (param v128 v128 v128) (result v128) local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd))
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version
  0x01,
  0x08,
  0x01,
  0x60,
  0x03,
  0x7b,
  0x7b,
  0x7b,
  0x01,
  0x7b, // type: (v128 v128 v128) -> v128
  0x03,
  0x02,
  0x01,
  0x00, // function 0 has type 0
  0x0a,
  0x0d,
  0x01,
  0x0b,
  0x00,
  0x20,
  0x00,
  0x20,
  0x01,
  0x20,
  0x02,
  0xfd,
  0x85,
  0x02,
  0x0b, // code
]);

// (module (func (param v128) (result v128) local.get 0 local.get 0 f32x4.add))
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01,
  0x00, 0x0a, 0x0b, 0x01, 0x09, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0xe4, 0x01, 0x0b,
]);

/** Whether this engine runs 128-bit SIMD (every build needs it). */
export function supportsSimd(): boolean {
  return webAssembly()?.validate(SIMD_PROBE) ?? false;
}

/** Whether this engine runs relaxed SIMD (Node 20 only with --experimental-wasm-relaxed-simd). */
export function supportsRelaxedSimd(): boolean {
  return webAssembly()?.validate(RELAXED_SIMD_PROBE) ?? false;
}

/** Whether shared wasm memory can be created here (SharedArrayBuffer; cross-origin isolation in browsers). */
export function supportsSharedMemory(): boolean {
  const api = webAssembly();
  if (api === undefined || typeof SharedArrayBuffer !== 'function') return false;
  if (Reflect.get(globalThis, 'crossOriginIsolated') === false) return false;
  try {
    return (
      api.Memory !== undefined &&
      new api.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer
    );
  } catch {
    return false;
  }
}
