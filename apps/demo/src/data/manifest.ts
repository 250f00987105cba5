// data/manifest.json: what scripts/prepare-data.ts wrote, read by the page before anything else (browser-safe).
import { DemoDataError } from './demo-data-error.ts';

/** Version of the prepared-data layout; the page refuses other versions. */
export const MANIFEST_VERSION = 2;

/** File names inside data/. */
export const DATA_FILES = {
  manifest: 'manifest.json',
  words: 'words.json',
  vectors: 'vectors.bin',
  hnsw: 'hnsw-graph.bin',
  wordnetMeta: 'wordnet.json',
  wordnetCsr: 'wordnet-csr.bin',
  benchIndex: 'bench/index.json',
} as const;

/** The data files the page loads, by key. */
export type DataFile = 'words' | 'vectors' | 'hnsw' | 'wordnetMeta' | 'wordnetCsr';

/** Every DataFile key. */
export const LOADED_FILES: readonly DataFile[] = ['words', 'vectors', 'hnsw', 'wordnetMeta', 'wordnetCsr'];

/** What the prepared data holds. */
export interface DemoManifest {
  /** Layout version (MANIFEST_VERSION). */
  readonly version: number;
  /** When it was prepared (ISO date). */
  readonly preparedAt: string;
  /** The word list: the `count` most frequent wink words, `dim` floats each (unit vectors in vectors.bin, as f16). */
  readonly words: { readonly count: number; readonly dim: number };
  /** Bytes of each data file the page loads (words, vectors, hnsw, wordnetMeta, wordnetCsr): its progress is counted against them. */
  readonly sizes: Readonly<Record<DataFile, number>>;
  /** The HNSW index (save({ vectors: false }): the graph only, built on vectors.bin's values), its size in bytes and build settings. */
  readonly hnsw: {
    readonly bytes: number;
    readonly M: number;
    readonly efConstruction: number;
    readonly seed: number;
    readonly buildSeconds: number;
  };
  /** The WordNet graph: synsets and directed, relation-weighted edges. */
  readonly wordnet: { readonly nodes: number; readonly edges: number };
  /** Bench result files copied from bench-results/ (0 when there were none). */
  readonly benchFiles: number;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DemoDataError(DATA_FILES.manifest, `${what} must be an object`);
  return Object.fromEntries(Object.entries(value));
}

function count(obj: Record<string, unknown>, key: string, what: string, min: number): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new DemoDataError(
      DATA_FILES.manifest,
      `${what}.${key} must be an integer >= ${min}, got ${JSON.stringify(v)}`,
    );
  return v;
}

function finite(obj: Record<string, unknown>, key: string, what: string): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new DemoDataError(DATA_FILES.manifest, `${what}.${key} must be a finite number, got ${JSON.stringify(v)}`);
  return v;
}

/** Checks a parsed manifest.json; throws DemoDataError naming the bad field. */
export function parseManifest(value: unknown): DemoManifest {
  const top = record(value, 'the manifest');
  const version = top['version'];
  if (version !== MANIFEST_VERSION)
    throw new DemoDataError(
      DATA_FILES.manifest,
      `version ${JSON.stringify(version)} is not ${MANIFEST_VERSION}: rebuild with \`npm run build -w @tandem/demo\``,
    );
  const preparedAt = top['preparedAt'];
  if (typeof preparedAt !== 'string') throw new DemoDataError(DATA_FILES.manifest, 'preparedAt must be a string');
  const words = record(top['words'], 'words');
  const hnsw = record(top['hnsw'], 'hnsw');
  const wordnet = record(top['wordnet'], 'wordnet');
  const sizesIn = record(top['sizes'], 'sizes');
  const sizes: Record<DataFile, number> = { words: 0, vectors: 0, hnsw: 0, wordnetMeta: 0, wordnetCsr: 0 };
  for (const file of LOADED_FILES) sizes[file] = count(sizesIn, file, 'sizes', 1);
  return {
    version,
    preparedAt,
    words: { count: count(words, 'count', 'words', 1), dim: count(words, 'dim', 'words', 1) },
    sizes,
    hnsw: {
      bytes: count(hnsw, 'bytes', 'hnsw', 48),
      M: count(hnsw, 'M', 'hnsw', 2),
      efConstruction: count(hnsw, 'efConstruction', 'hnsw', 1),
      seed: count(hnsw, 'seed', 'hnsw', 0),
      buildSeconds: finite(hnsw, 'buildSeconds', 'hnsw'),
    },
    wordnet: { nodes: count(wordnet, 'nodes', 'wordnet', 1), edges: count(wordnet, 'edges', 'wordnet', 0) },
    benchFiles: count(top, 'benchFiles', 'manifest', 0),
  };
}
