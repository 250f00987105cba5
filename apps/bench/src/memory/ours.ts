// Tandem's HnswIndex over the word vectors, cached in .cache/bench/ so reruns skip the build. The cache is graph
// only (save({ vectors: false }): levels + links + params + the CRC-32 of the vectors, ~47 MB for all 341,479 words
// instead of 183 MB), loaded with the wink vectors the suite has anyway; that is also the file gpu-pack.sh sends
// to the GPU machine. A full index cached by an earlier version (.tdhn, vectors included) still loads, and is
// rewritten graph only.
import { statSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import type { Engine } from '@tandem/core';
import { HnswFormatError, HnswIndex, HnswVectorsMismatchError } from '@tandem/memory';
import { BENCH_CACHE_DIR, metaNumber, readCached, writeCached } from './cache.ts';

/** Where an index came from and what its sidecar says about the build. */
export interface IndexOrigin {
  /** The cache file it was loaded from (in .cache/bench/), or undefined when built in this run. */
  readonly cacheFile: string | undefined;
  /** Build time: measured in this run, or recorded when the cache was made. */
  readonly buildMs: number;
  /** Where the recorded build ran (CPU model), when the sidecar says. */
  readonly builtOn: string | undefined;
  /** When the recorded build finished (ISO date), when the sidecar says. */
  readonly builtAt: string | undefined;
  /** Load time of the cache file (read + decode + checks), 0 when built. */
  readonly loadMs: number;
}

/** The sidecar of an index built here now. */
export function buildMeta(buildMs: number): Record<string, unknown> {
  return {
    buildMs,
    builtOn: `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (one thread)`,
    builtAt: new Date().toISOString(),
  };
}

/** What a cache sidecar records, as an origin. */
export function cachedOrigin(
  cacheFile: string,
  meta: Record<string, unknown>,
  buildMs: number,
  loadMs: number,
): IndexOrigin {
  const text = (key: string): string | undefined => (typeof meta[key] === 'string' ? meta[key] : undefined);
  return { cacheFile, buildMs, builtOn: text('builtOn'), builtAt: text('builtAt'), loadMs };
}

/** One line for the log and the verdicts: loaded from which cache (and the build it records), or built now. */
export function describeOrigin(library: string, o: IndexOrigin): string {
  if (o.cacheFile === undefined) return `${library} built in this run in ${(o.buildMs / 1000).toFixed(1)} s`;
  const where = [o.builtOn, o.builtAt?.slice(0, 10)].filter((s) => s !== undefined).join(', ');
  return `${library} loaded from .cache/bench/${o.cacheFile} in ${(o.loadMs / 1000).toFixed(1)} s (its build took ${(o.buildMs / 1000).toFixed(1)} s when the cache was made${where === '' ? '' : `, on ${where}`})`;
}

/** When a cache file was written (ISO), for a sidecar that does not say when its build ran. */
export function cacheTime(name: string): string {
  return statSync(path.join(BENCH_CACHE_DIR, name)).mtime.toISOString();
}

/** The cache file names of an index of `count` vectors. */
export function tandemCacheNames(
  count: number,
  params: { m: number; efConstruction: number; seed: number },
): { graph: string; full: string } {
  const base = `tandem-hnsw-wink-${count}-M${params.m}-efc${params.efConstruction}-seed${params.seed}`;
  return { graph: `${base}.tdhg`, full: `${base}.tdhn` };
}

/** A built (or loaded) index and where it came from. */
export async function tandemIndex(
  vectors: Float32Array,
  dim: number,
  params: { m: number; efConstruction: number; seed: number },
  engine: Engine | undefined,
  onProgress: (done: number, total: number) => void,
): Promise<{ index: HnswIndex; origin: IndexOrigin }> {
  const count = vectors.length / dim;
  const names = tandemCacheNames(count, params);
  const options = engine === undefined ? {} : { engine };
  for (const name of [names.graph, names.full]) {
    const cached = await readCached(name);
    const cachedMs = cached === undefined ? undefined : metaNumber(cached.meta, 'buildMs');
    if (cached === undefined || cachedMs === undefined) continue;
    const start = performance.now();
    try {
      const graphOnly = name === names.graph;
      const index = await HnswIndex.load(cached.bytes, graphOnly ? { ...options, vectors } : options);
      const origin = cachedOrigin(name, cached.meta, cachedMs, performance.now() - start);
      if (!graphOnly)
        await writeCached(names.graph, index.save({ vectors: false }), {
          ...cached.meta,
          builtAt: origin.builtAt ?? cacheTime(name),
        });
      return { index, origin };
    } catch (error) {
      if (!(error instanceof HnswFormatError || error instanceof HnswVectorsMismatchError)) throw error;
      console.log(`cached index .cache/bench/${name} rejected (${error.message})`);
    }
  }
  console.log(
    `no usable tandem HNSW cache (.cache/bench/${names.graph}): building (one thread; ~100 s for all 341,479 words on the packing machine)`,
  );
  const start = performance.now();
  const index = await HnswIndex.build(vectors, dim, {
    M: params.m,
    efConstruction: params.efConstruction,
    seed: params.seed,
    ...options,
    onProgress,
  });
  const buildMs = performance.now() - start;
  await writeCached(names.graph, index.save({ vectors: false }), buildMeta(buildMs));
  return { index, origin: { cacheFile: undefined, buildMs, builtOn: undefined, builtAt: undefined, loadMs: 0 } };
}
