// data/manifest.json: what scripts/prepare-data.ts wrote, read by the page before anything else (browser-safe).
import { DemoDataError } from './demo-data-error.ts';

/** Version of the prepared-data layout; the page refuses other versions. */
export const MANIFEST_VERSION = 1;

/** File names inside data/. */
export const DATA_FILES = {
  manifest: 'manifest.json',
  words: 'words.json',
  hnsw: 'hnsw.bin',
  wordnetMeta: 'wordnet.json',
  wordnetCsr: 'wordnet-csr.bin',
  benchIndex: 'bench/index.json',
} as const;

/** What the prepared data holds. */
export interface DemoManifest {
  /** Layout version (MANIFEST_VERSION). */
  readonly version: number;
  /** When it was prepared (ISO date). */
  readonly preparedAt: string;
  /** The word list: the `count` most frequent wink words, `dim` floats each (the vectors live in the HNSW file). */
  readonly words: { readonly count: number; readonly dim: number };
  /** The HNSW index (save() format), its size in bytes and build settings. */
  readonly hnsw: { readonly bytes: number; readonly M: number; readonly efConstruction: number; readonly seed: number; readonly buildSeconds: number };
  /** The WordNet graph: synsets and directed, relation-weighted edges. */
  readonly wordnet: { readonly nodes: number; readonly edges: number };
  /** Bench result files copied from bench-results/ (0 when there were none). */
  readonly benchFiles: number;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DemoDataError(DATA_FILES.manifest, `${what} must be an object`);
  return Object.fromEntries(Object.entries(value));
}

function count(obj: Record<string, unknown>, key: string, what: string, min: number): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new DemoDataError(DATA_FILES.manifest, `${what}.${key} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return v;
}

function finite(obj: Record<string, unknown>, key: string, what: string): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new DemoDataError(DATA_FILES.manifest, `${what}.${key} must be a finite number, got ${JSON.stringify(v)}`);
  return v;
}

/** Checks a parsed manifest.json; throws DemoDataError naming the bad field. */
export function parseManifest(value: unknown): DemoManifest {
  const top = record(value, 'the manifest');
  const version = top['version'];
  if (version !== MANIFEST_VERSION) throw new DemoDataError(DATA_FILES.manifest, `version ${JSON.stringify(version)} is not ${MANIFEST_VERSION}: rebuild with \`npm run build -w @tandem/demo\``);
  const preparedAt = top['preparedAt'];
  if (typeof preparedAt !== 'string') throw new DemoDataError(DATA_FILES.manifest, 'preparedAt must be a string');
  const words = record(top['words'], 'words');
  const hnsw = record(top['hnsw'], 'hnsw');
  const wordnet = record(top['wordnet'], 'wordnet');
  return {
    version,
    preparedAt,
    words: { count: count(words, 'count', 'words', 1), dim: count(words, 'dim', 'words', 1) },
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
