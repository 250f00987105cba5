// Tandem's HnswIndex over the word vectors, cached in .cache/bench/ (save/load) so reruns skip the build.
import type { Engine } from '@tandem/core';
import { HnswFormatError, HnswIndex } from '@tandem/memory';
import { metaNumber, readCached, writeCached } from './cache.ts';

/** A built (or loaded) index and its build time (from the sidecar when cached). */
export async function tandemIndex(
  vectors: Float32Array,
  dim: number,
  params: { m: number; efConstruction: number; seed: number },
  engine: Engine,
  onProgress: (done: number, total: number) => void,
): Promise<{ index: HnswIndex; buildMs: number; cached: boolean; loadMs: number }> {
  const count = vectors.length / dim;
  const name = `tandem-hnsw-wink-${count}-M${params.m}-efc${params.efConstruction}-seed${params.seed}.tdhn`;
  const cached = await readCached(name);
  const cachedMs = cached === undefined ? undefined : metaNumber(cached.meta, 'buildMs');
  if (cached !== undefined && cachedMs !== undefined) {
    const start = performance.now();
    try {
      const index = HnswIndex.load(cached.bytes, { engine });
      return { index, buildMs: cachedMs, cached: true, loadMs: performance.now() - start };
    } catch (error) {
      if (!(error instanceof HnswFormatError)) throw error;
      console.log(`cached index rejected (${error.message}); rebuilding`);
    }
  }
  const start = performance.now();
  const index = await HnswIndex.build(vectors, dim, { M: params.m, efConstruction: params.efConstruction, seed: params.seed, engine, onProgress });
  const buildMs = performance.now() - start;
  await writeCached(name, index.save(), { buildMs });
  return { index, buildMs, cached: false, loadMs: 0 };
}
