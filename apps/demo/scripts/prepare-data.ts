// Prepares the demo's data in apps/demo/public/data/ (gitignored): the most frequent wink words, their unit vectors
// as half floats (vectors.bin: half the bytes, and the values the page searches), the HNSW index built on those
// values saved as the graph only, the WordNet graph, and the latest bench results. The HNSW build is cached in
// <repo>/.cache/demo/ keyed by word count, build settings and a checksum of the vectors, so rebuilds take seconds.
//   node -C @tandem/source --import tsx apps/demo/scripts/prepare-data.ts [--words 5000]    (--help for the flags)
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32, InvalidArgumentError } from '@tandem/core';
import { loadWinkEmbeddings, loadWordNet } from '@tandem/datasets';
import { HnswIndex } from '@tandem/memory';
import { DATA_FILES, LOADED_FILES, MANIFEST_VERSION, type DemoManifest } from '../src/data/manifest.ts';
import { encodeVectors, roundToHalf } from '../src/data/vectors-format.ts';
import { encodeWordNetCsr } from '../src/data/wordnet-format.ts';
import { copyBenchResults } from './copy-bench-results.ts';

const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO_ROOT = path.resolve(DEMO_DIR, '../..');
const HNSW_SETTINGS = { M: 16, efConstruction: 200, seed: 42 } as const;

const USAGE = `Usage: node -C @tandem/source --import tsx apps/demo/scripts/prepare-data.ts [options]

Writes the demo's data to apps/demo/public/data/.

  --words N        most frequent wink words to prepare, 100..341479 (default $TANDEM_DEMO_WORDS or 50000)
  -h, --help       this text`;

/** The command line: --words (else $TANDEM_DEMO_WORDS, else 50,000); --help; unknown flags exit 2. */
function wordCount(): number {
  let values: { words?: string | undefined; help?: boolean | undefined };
  try {
    values = parseArgs({
      options: { words: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  const [name, raw] =
    values.words !== undefined ? ['--words', values.words] : ['TANDEM_DEMO_WORDS', process.env['TANDEM_DEMO_WORDS']];
  if (raw === undefined || raw === '') return 50_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 100 || n > 341_479)
    throw new InvalidArgumentError(name, raw, 'must be an integer in 100..341479');
  return n;
}

/** Row-wise unit vectors (the page's cosine and the index both see unit vectors). */
function unitRows(vectors: Float32Array, dim: number): Float32Array {
  const out = new Float32Array(vectors.length);
  for (let r = 0; r < vectors.length / dim; r++) {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += (vectors[r * dim + d] ?? 0) ** 2;
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let d = 0; d < dim; d++) out[r * dim + d] = (vectors[r * dim + d] ?? 0) * inv;
  }
  return out;
}

/** The HNSW index of `vectors`: from the cache when it holds this exact build, else built and cached. */
async function hnswBytes(
  vectors: Float32Array,
  dim: number,
  cacheDir: string,
): Promise<{ bytes: Uint8Array; seconds: number }> {
  const count = vectors.length / dim;
  const key = crc32(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength))
    .toString(16)
    .padStart(8, '0');
  const file = path.join(
    cacheDir,
    `hnsw-graph-${count}w-M${HNSW_SETTINGS.M}-ef${HNSW_SETTINGS.efConstruction}-s${HNSW_SETTINGS.seed}-${key}.bin`,
  );
  const cached = await readFile(file).catch(() => undefined);
  if (cached !== undefined) {
    try {
      const bytes = new Uint8Array(cached.buffer, cached.byteOffset, cached.byteLength);
      if ((await HnswIndex.load(bytes, { vectors })).count === count) {
        const meta: unknown = JSON.parse(await readFile(`${file}.json`, 'utf8').catch(() => '{}'));
        const seconds: unknown = typeof meta === 'object' && meta !== null ? Reflect.get(meta, 'seconds') : undefined;
        console.log(`[demo] HNSW index from the cache: ${path.relative(REPO_ROOT, file)}`);
        return { bytes, seconds: typeof seconds === 'number' ? seconds : 0 };
      }
    } catch (error) {
      console.warn(
        `[demo] cached index unusable, rebuilding: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  console.log(
    `[demo] building the HNSW index of ${count} words (M ${HNSW_SETTINGS.M}, efConstruction ${HNSW_SETTINGS.efConstruction})...`,
  );
  const started = performance.now();
  let lastTenth = 0;
  const index = await HnswIndex.build(vectors, dim, {
    ...HNSW_SETTINGS,
    onProgress: (done, total) => {
      const tenth = Math.floor((done / total) * 10);
      if (tenth > lastTenth) console.log(`[demo]   ${tenth * 10}% (${done}/${total})`);
      lastTenth = tenth;
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const bytes = index.save({ vectors: false });
  await mkdir(cacheDir, { recursive: true });
  await writeFile(`${file}.tmp`, bytes);
  await rename(`${file}.tmp`, file);
  await writeFile(`${file}.json`, JSON.stringify({ seconds }));
  console.log(`[demo] built in ${seconds.toFixed(1)} s`);
  return { bytes, seconds };
}

/** Writes every data file and the manifest (last, so a half-written folder has none). */
async function prepare(): Promise<void> {
  const started = performance.now();
  const count = wordCount();
  const outDir = path.join(DEMO_DIR, 'public', 'data');
  await mkdir(outDir, { recursive: true });
  const wink = await loadWinkEmbeddings({ limit: count });
  const vectors = roundToHalf(unitRows(wink.vectors, wink.dim));
  const hnsw = await hnswBytes(vectors, wink.dim, path.join(REPO_ROOT, '.cache', 'demo'));
  const wordnet = await loadWordNet();
  const files = {
    words: new TextEncoder().encode(JSON.stringify(wink.words)),
    vectors: encodeVectors(vectors, wink.dim),
    hnsw: hnsw.bytes,
    wordnetMeta: new TextEncoder().encode(JSON.stringify({ synsetIds: wordnet.synsetIds, lemmas: wordnet.lemmas })),
    wordnetCsr: encodeWordNetCsr(wordnet.rowPtr, wordnet.colIdx, wordnet.weights),
  };
  for (const key of LOADED_FILES) await writeFile(path.join(outDir, DATA_FILES[key]), files[key]);
  const bench = await copyBenchResults(
    process.env['TANDEM_BENCH_OUT'] ?? path.join(REPO_ROOT, 'bench-results'),
    path.join(outDir, 'bench'),
  );
  const manifest: DemoManifest = {
    version: MANIFEST_VERSION,
    preparedAt: new Date().toISOString(),
    words: { count: wink.words.length, dim: wink.dim },
    sizes: {
      words: files.words.byteLength,
      vectors: files.vectors.byteLength,
      hnsw: files.hnsw.byteLength,
      wordnetMeta: files.wordnetMeta.byteLength,
      wordnetCsr: files.wordnetCsr.byteLength,
    },
    hnsw: { bytes: hnsw.bytes.byteLength, ...HNSW_SETTINGS, buildSeconds: hnsw.seconds },
    wordnet: { nodes: wordnet.synsetIds.length, edges: wordnet.colIdx.length },
    benchFiles: bench.suites.length,
  };
  await writeFile(path.join(outDir, DATA_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `[demo] data ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${count} words (vectors ${mb(files.vectors.byteLength)} MiB, HNSW graph ${mb(hnsw.bytes.byteLength)} MiB), WordNet ${manifest.wordnet.nodes} synsets / ${manifest.wordnet.edges} edges, ${bench.suites.length} bench result files -> ${path.relative(REPO_ROOT, outDir)}`,
  );
}

await prepare();
