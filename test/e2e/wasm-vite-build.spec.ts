// @tandem/wasm in a production Vite build: `vite build` must find the kernels' .wasm files (referenced with
// `new URL('…', import.meta.url)`) and emit them, and the built page must load them from where Vite put them
// and compute the right answer in Chromium (served cross-origin isolated, so the threaded build can load).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { build, preview, type PreviewServer } from 'vite';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing } from './chromium.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] } });

const root = fileURLToPath(new URL('./fixtures/wasm-vite', import.meta.url));
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
let outDir = '';
let server: PreviewServer | undefined;

test.beforeAll(async () => {
  outDir = mkdtempSync(path.join(os.tmpdir(), 'tandem-vite-build-'));
  await build({ configFile: false, root, logLevel: 'warn', build: { outDir, emptyOutDir: true }, worker: { format: 'es' } });
  server = await preview({ configFile: false, root, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0, headers: isolation } });
});

test.afterAll(async () => {
  await server?.close();
  if (outDir !== '') rmSync(outDir, { recursive: true, force: true });
});

/** The exact product's sum and first row entries, in float64 (small integers: exact in f32 too). */
function expected(): { sum: number; head: number[] } {
  const n = 64;
  const a = (i: number): number => (i % 7) - 3;
  const b = (i: number): number => (i % 5) - 2;
  let sum = 0;
  const head: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a(i * n + k) * b(k * n + j);
      sum += s;
      if (i === 0 && j < 4) head.push(s);
    }
  }
  return { sum, head };
}

test('vite build emits the .wasm kernels and the built page runs a matmul on them', async ({ page }) => {
  const assets = readdirSync(path.join(outDir, 'assets'));
  expect(assets.filter((f) => f.endsWith('.wasm')).length, `assets: ${assets.join(', ')}`).toBeGreaterThan(0);
  const url = server?.resolvedUrls?.local[0];
  if (url === undefined) throw new Error('vite preview did not report a URL');
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => Reflect.get(globalThis, '__tandemResult') !== undefined, undefined, { timeout: 30_000 });
  const result: unknown = await page.evaluate(() => Reflect.get(globalThis, '__tandemResult'));
  const want = expected();
  expect(result).toMatchObject({ init: 'ok', error: '', sum: want.sum, head: want.head });
  console.log(`built page: ${JSON.stringify(result)}; emitted: ${assets.filter((f) => f.endsWith('.wasm')).join(', ')}`);
  expect(errors).toEqual([]);
});
