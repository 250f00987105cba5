// The wasm module an HnswGraph runs in: @tandem/wasm's kernel build (SIMD128, no threads), one instance and one
// linear memory per graph, its maximum as large as the host grants (4 GiB at most, wasm32).
import type { LoadedKernels } from '@tandem/wasm';
import { HnswCapacityError } from './errors.ts';

/** The wasm32 address space: the most memory one graph can have. */
export const WASM32_MAX_BYTES = 4 * 1024 ** 3;

/** A fresh kernel instance for one graph; HnswCapacityError (0 bytes needed) when this host cannot run it. */
export async function startGraphKernels(): Promise<LoadedKernels> {
  // Imported on first use, as tandem's default backends import it: a page that never builds an index loads no wasm code.
  const { loadKernels } = await import('@tandem/wasm');
  const result = await loadKernels({ simd: 'simd', threads: false, maxBytes: WASM32_MAX_BYTES, distUrl: undefined });
  if (!result.ok)
    throw new HnswCapacityError(`the HNSW graph kernels (WebAssembly SIMD) cannot start here: ${result.reason}`, 0, 0);
  return result.loaded;
}
