// Install suite: Tandem as its users get it, from the packed tarballs.
//  1. The smallest Vite page that runs one matmul, on Tandem, onnxruntime-web and tfjs-core + tfjs-backend-wasm
//     (install/pages.ts): bytes gzip-compressed that Vite emits and that the page fetches in Chromium, and the time
//     from the start of the engine to the product (median of 5 fresh loads, cross-origin isolated, no WebGPU).
//  2. Node: time from createEngine() to the first matmul result, in a fresh process (median of 7).
//  3. The install size of `tandem` alone in Node (node_modules, no GPU parts).
// Needs Chromium (Debian's chromium) for part 1; the npm registry or npm's cache for the pages' dependencies.
import { sampleStats } from '@tandem/core';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from '@playwright/test';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing } from '../../../../test/e2e/chromium.ts';
import { serveStatic } from '../../../../test/e2e/static-server.ts';
import { consumerProject, type ConsumerProject } from '../../../../test/consumers/support/project.ts';
import { PAGE_HTML, PAGES, type PageSpec } from '../install/pages.ts';
import type { Row, SuiteResult } from '../report.ts';

const LOADS = 5;
const NODE_STARTS = 7;

/** gzip -6 size of bytes, as a server would send them compressed. */
const gzipped = (bytes: Uint8Array): number => gzipSync(bytes).byteLength;

/** Sum of the gzip sizes of every file Vite emitted. */
function emittedGzipBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) total += gzipped(readFileSync(path.join(entry.parentPath, entry.name)));
  return total;
}

/** One page load: what it fetched (gzip-compressed) and the time its engine took to the product. */
async function loadPage(
  browser: Browser,
  url: string,
): Promise<{ fetchedGzip: number; ms: number; product: number[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  let fetchedGzip = 0;
  const bodies: Promise<void>[] = [];
  const errors: string[] = [];
  page.on('response', (response) =>
    bodies.push(
      response.body().then(
        (b) => {
          fetchedGzip += gzipped(b);
        },
        () => undefined,
      ),
    ),
  );
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  try {
    await page.goto(url);
    await page
      .waitForFunction(() => Reflect.get(globalThis, 'benchResult') !== undefined, undefined, { timeout: 120_000 })
      .catch((error: unknown) => {
        throw new Error(`${url}: no result (${errors.join('; ') || String(error)})`);
      });
    const result: { ms: number; product: number[] } = await page.evaluate(() => Reflect.get(globalThis, 'benchResult'));
    await Promise.all(bodies);
    return { fetchedGzip, ...result };
  } finally {
    await context.close();
  }
}

async function buildPage(spec: PageSpec): Promise<ConsumerProject> {
  const slug = spec.name.replace(/[^a-z]+/g, '-');
  const project = await consumerProject(`bench-${slug}`, {
    tarballs: spec.tarballs,
    fromRegistry: spec.fromRegistry,
    files: { 'index.html': PAGE_HTML, 'main.js': spec.main },
  });
  const built = await project.run('npx', ['vite', 'build', '--logLevel', 'error']);
  if (built.code !== 0) throw new Error(`${spec.name}: vite build failed:\n${built.stderr}`);
  for (const [target, source] of Object.entries(spec.copy ?? {})) {
    mkdirSync(path.join(project.dir, 'dist', target), { recursive: true });
    for (const f of readdirSync(path.join(project.dir, source)).filter((n) => n.endsWith('.wasm')))
      copyFileSync(path.join(project.dir, source, f), path.join(project.dir, 'dist', target, f));
  }
  return project;
}

async function pageRows(): Promise<Row[]> {
  const missing = chromiumMissing();
  if (missing !== undefined) return [{ engine: 'pages', note: `skipped: ${missing} (apt-get install -y chromium)` }];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] });
  const rows: Row[] = [];
  try {
    for (const spec of PAGES) {
      const project = await buildPage(spec);
      const server = await serveStatic(path.join(project.dir, 'dist'), true);
      try {
        const loads = [];
        for (let i = 0; i < LOADS; i++) loads.push(await loadPage(browser, `${server.origin}/`));
        const product = loads[0]?.product ?? [];
        rows.push({
          engine: spec.name,
          'emitted gzip KiB': emittedGzipBytes(path.join(project.dir, 'dist')) / 1024,
          'fetched gzip KiB': sampleStats(loads.map((l) => l.fetchedGzip)).median / 1024,
          'page: engine start to product, ms (median)': sampleStats(loads.map((l) => l.ms)).median,
          'product correct': JSON.stringify(product) === '[7,10,15,22]',
        });
      } finally {
        await server.close();
        project.remove();
      }
    }
  } finally {
    await browser.close();
  }
  return rows;
}

const NODE_FIRST_RESULT = `import { createEngine } from 'tandem';
const started = performance.now();
const engine = await createEngine({ profile: false }); // a first start: no saved profile
const a = engine.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
await (await engine.matmul(a, a)).read();
console.log(performance.now() - started);
await engine.dispose();
`;

async function nodeRows(): Promise<Row[]> {
  const project = await consumerProject('bench-node', {
    tarballs: ['tandem'],
    files: { 'first.mjs': NODE_FIRST_RESULT },
  });
  try {
    const du = await project.run('du', ['-sk', 'node_modules']);
    const ms: number[] = [];
    for (let i = 0; i < NODE_STARTS; i++) {
      const ran = await project.run('node', ['first.mjs']);
      if (ran.code !== 0) throw new Error(`node first.mjs failed: ${ran.stderr}`);
      ms.push(Number(ran.stdout.trim()));
    }
    const s = sampleStats(ms);
    return [
      {
        engine: 'tandem in Node',
        'install size MiB (tandem alone, no GPU parts)': Number(du.stdout.split('\t')[0]) / 1024,
        'node: createEngine() to product, ms (median)': s.median,
        'node: min ms': s.min,
        'node: max ms': s.max,
      },
    ];
  } finally {
    project.remove();
  }
}

/** Runs the suite. */
export default async function install(): Promise<SuiteResult> {
  const pages = await pageRows();
  const node = await nodeRows();
  const verdicts: string[] = [];
  const tandem = pages.find((r) => r['engine'] === 'tandem');
  for (const other of pages.filter((r) => r['engine'] !== 'tandem' && typeof r['fetched gzip KiB'] === 'number')) {
    const ratio = (key: string): string => (Number(tandem?.[key]) / Number(other[key])).toFixed(2);
    verdicts.push(
      `tandem / ${other['engine']}: fetched gzip ${ratio('fetched gzip KiB')}x, emitted gzip ${ratio('emitted gzip KiB')}x, time to the product ${ratio('page: engine start to product, ms (median)')}x`,
    );
  }
  verdicts.push(
    `pages loaded ${LOADS} times each in Chromium (cross-origin isolated, without --enable-unsafe-webgpu: no WebGPU adapter); onnxruntime-web is its WASM-only build ('onnxruntime-web/wasm'), tfjs runs one thread (its threaded build fails once bundled); Node: ${NODE_STARTS} fresh processes`,
  );
  return { suite: 'install', rows: [...pages, ...node], verdicts };
}
