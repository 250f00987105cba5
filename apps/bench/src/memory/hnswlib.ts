// hnswlib-node (optional dependency) as the comparison: same data, cosine, M, efConstruction, one thread
// (hnswlib-node's addPoint and searchKnn run on the calling thread). Its index is cached in .cache/bench/.
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BENCH_CACHE_DIR, metaNumber, readMeta, writeMeta } from './cache.ts';
import { buildMeta, cacheTime, cachedOrigin, type IndexOrigin } from './ours.ts';

/** The parts of hnswlib-node's HierarchicalNSW the suite uses. */
export interface HnswlibIndex {
  /** Allocates the index. */
  initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
  /** Adds one point. */
  addPoint(point: number[], label: number): void;
  /** k nearest labels and distances. */
  searchKnn(query: number[], k: number): { neighbors: number[]; distances: number[] };
  /** Search list size. */
  setEf(ef: number): void;
  /** Saves to a file. */
  writeIndexSync(file: string): void;
  /** Loads from a file. */
  readIndexSync(file: string): void;
}

/** hnswlib-node's module. */
interface HnswlibModule {
  readonly HierarchicalNSW: new (space: string, dim: number) => HnswlibIndex;
}

function isHnswlibModule(value: unknown): value is HnswlibModule {
  return (
    typeof value === 'object' &&
    value !== null &&
    'HierarchicalNSW' in value &&
    typeof value.HierarchicalNSW === 'function'
  );
}

/** hnswlib-node, or the reason it cannot be used. */
export function loadHnswlib(): { module: HnswlibModule } | { missing: string } {
  try {
    const required: unknown = createRequire(import.meta.url)('hnswlib-node');
    return isHnswlibModule(required)
      ? { module: required }
      : { missing: 'hnswlib-node loaded but has no HierarchicalNSW' };
  } catch (error) {
    return {
      missing: `hnswlib-node is not installed or not built (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    };
  }
}

/** The cache file name of hnswlib-node's index of `count` vectors. */
export function hnswlibCacheName(count: number, params: { m: number; efConstruction: number }): string {
  return `hnswlib-wink-${count}-M${params.m}-efc${params.efConstruction}.bin`;
}

/** A built (or cached) hnswlib index of the vectors, and where it came from. */
export async function hnswlibIndex(
  lib: HnswlibModule,
  vectors: Float32Array,
  dim: number,
  params: { m: number; efConstruction: number; seed: number },
  onProgress: (done: number, total: number) => void,
): Promise<{ index: HnswlibIndex; origin: IndexOrigin }> {
  const count = vectors.length / dim;
  const name = hnswlibCacheName(count, params);
  const index = new lib.HierarchicalNSW('cosine', dim);
  const meta = await readMeta(name);
  const cachedMs = meta === undefined ? undefined : metaNumber(meta, 'buildMs');
  if (meta !== undefined && cachedMs !== undefined) {
    const start = performance.now();
    index.readIndexSync(path.join(BENCH_CACHE_DIR, name));
    const origin = cachedOrigin(name, meta, cachedMs, performance.now() - start);
    return { index, origin: origin.builtAt === undefined ? { ...origin, builtAt: cacheTime(name) } : origin };
  }
  console.log(
    `no hnswlib-node cache (.cache/bench/${name}): building (one thread; ~155 s for all 341,479 words on the packing machine)`,
  );
  const start = performance.now();
  index.initIndex(count, params.m, params.efConstruction, params.seed);
  for (let i = 0; i < count; i++) {
    index.addPoint(Array.from(vectors.subarray(i * dim, (i + 1) * dim)), i);
    if ((i + 1) % 5000 === 0 || i + 1 === count) onProgress(i + 1, count);
  }
  const buildMs = performance.now() - start;
  await mkdir(BENCH_CACHE_DIR, { recursive: true });
  index.writeIndexSync(path.join(BENCH_CACHE_DIR, name));
  await writeMeta(name, buildMeta(buildMs));
  return { index, origin: { cacheFile: undefined, buildMs, builtOn: undefined, builtAt: undefined, loadMs: 0 } };
}
