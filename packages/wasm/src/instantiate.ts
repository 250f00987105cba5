// Picks a build for this host, loads and compiles it, and instantiates it over a fresh linear memory.
import { bindKernels, type Kernels } from './kernel-exports.ts';
import { loadWasmBytes } from './load-bytes.ts';
import { PAGE_BYTES } from './linear-memory.ts';
import {
  buildUrl,
  pickBuild,
  supportsRelaxedSimd,
  supportsSharedMemory,
  supportsSimd,
  type WasmBuild,
} from './wasm-builds.ts';
import { webAssembly, type WasmApi, type WasmMemory, type WasmModule } from './wasm-api.ts';

/** Which SIMD flavour to load: 'auto' takes relaxed SIMD when WebAssembly.validate accepts it. */
export type SimdChoice = 'auto' | 'simd' | 'relaxed';

/** A running kernel module. */
export interface LoadedKernels {
  /** The build that was loaded. */
  readonly build: WasmBuild;
  /** Its compiled module (workers instantiate it again over the same shared memory). */
  readonly module: WasmModule;
  /** The imported linear memory. */
  readonly memory: WasmMemory;
  /** Largest size the memory may grow to, bytes. */
  readonly maxBytes: number;
  /** The typed exports. */
  readonly kernels: Kernels;
}

/** What to load. */
export interface LoadRequest {
  /** SIMD flavour. */
  readonly simd: SimdChoice;
  /** Load a threads build over shared memory (only when the host supports it). */
  readonly threads: boolean;
  /** Memory cap, bytes (a multiple of 64 KiB, at most 4 GiB). */
  readonly maxBytes: number;
  /** Folder URL of the .wasm files, when not this package's dist/. */
  readonly distUrl: URL | undefined;
}

/** Loaded kernels, or why not. */
export type LoadResult =
  | { readonly ok: true; readonly loaded: LoadedKernels }
  | { readonly ok: false; readonly reason: string };

/** Initial memory: 16 MiB, grown on demand. */
const INITIAL_PAGES = 256;

/** Loads, compiles and instantiates the right build; never throws. */
export async function loadKernels(request: LoadRequest): Promise<LoadResult> {
  const api = webAssembly();
  if (api === undefined) return { ok: false, reason: 'this host has no WebAssembly' };
  if (!supportsSimd()) return { ok: false, reason: 'this WebAssembly engine does not support SIMD128' };
  const relaxedSupported = supportsRelaxedSimd();
  if (request.simd === 'relaxed' && !relaxedSupported) {
    return {
      ok: false,
      reason: 'relaxed SIMD was requested but this engine rejects it (Node 20: --experimental-wasm-relaxed-simd)',
    };
  }
  const threads = request.threads && supportsSharedMemory();
  const build = pickBuild(request.simd === 'relaxed' || (request.simd === 'auto' && relaxedSupported), threads);
  const bytes = await loadWasmBytes(buildUrl(build, request.distUrl));
  if (!bytes.ok) return bytes;
  try {
    const module = await api.compile(bytes.bytes);
    const { memory, maxBytes } = createMemory(api, request.maxBytes, threads);
    const instance = await api.instantiate(module, kernelImports(memory));
    return { ok: true, loaded: { build, module, memory, maxBytes, kernels: bindKernels(instance.exports) } };
  } catch (error) {
    return {
      ok: false,
      reason: `could not start ${build.file}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** The imports every build expects: env.memory (and env.abort, which --noAssert builds never call). */
export function kernelImports(memory: WasmMemory): Record<string, Record<string, unknown>> {
  return {
    env: {
      memory,
      abort: () => {
        throw new Error('wasm kernel aborted');
      },
    },
  };
}

/** A memory with the largest maximum the host grants, from maxBytes down to 256 MiB (browsers may refuse 4 GiB). */
function createMemory(api: WasmApi, maxBytes: number, shared: boolean): { memory: WasmMemory; maxBytes: number } {
  let maximum = Math.max(1, Math.floor(maxBytes / PAGE_BYTES));
  for (;;) {
    try {
      return {
        memory: new api.Memory({ initial: Math.min(INITIAL_PAGES, maximum), maximum, shared }),
        maxBytes: maximum * PAGE_BYTES,
      };
    } catch (error) {
      if (!(error instanceof RangeError) || maximum <= 4096) throw error;
      maximum = Math.floor(maximum / 2);
    }
  }
}
