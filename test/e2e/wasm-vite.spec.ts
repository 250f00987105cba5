// @tandem/wasm in a production Vite build: vite's build() must find the kernels' .wasm files (referenced with
// `new URL('…', import.meta.url)`) and emit them, and the built page, served as plain static files by a small
// server here (cross-origin isolated: COOP/COEP headers), must load them from where Vite put them and compute the
// exact product in Chromium, on one thread and on two (threads build, Web Worker over shared memory).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { matmul } from '@tandem/reference';
import { build, defaultClientConditions } from 'vite';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing } from './chromium.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] } });

const root = fileURLToPath(new URL('./fixtures/wasm-vite', import.meta.url));
let outDir = '';
let server: StaticServer | undefined;
let origin = '';

test.beforeAll(async () => {
  outDir = mkdtempSync(path.join(os.tmpdir(), 'tandem-vite-build-'));
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    resolve: { conditions: ['@tandem/source', ...defaultClientConditions] },
    build: { outDir, emptyOutDir: true },
    worker: { format: 'es' },
  });
  server = await serveStatic(outDir, true);
  origin = server.origin;
});

test.afterAll(async () => {
  await server?.close();
  if (outDir !== '') rmSync(outDir, { recursive: true, force: true });
});

/** The product's sum and C[0][0..3], from the reference (small integers: exact in f32). */
function expected(n: number): { sum: number; head: number[] } {
  const a = Float32Array.from({ length: n * n }, (_, i) => (i % 7) - 3);
  const b = Float32Array.from({ length: n * n }, (_, i) => (i % 5) - 2);
  const c = matmul(a, b, n, n, n);
  return { sum: c.reduce((total, v) => total + v, 0), head: Array.from(c.subarray(0, 4)) };
}

test('vite build emits the .wasm kernels and the built page runs matmuls on them, on one thread and on two', async ({
  page,
}) => {
  const emitted = readdirSync(path.join(outDir, 'assets')).filter((f) => f.endsWith('.wasm'));
  expect(emitted.length, `emitted: ${emitted.join(', ')}`).toBeGreaterThan(0);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const wasmRequests: string[] = [];
  page.on('requestfinished', (r) => {
    if (r.url().endsWith('.wasm')) wasmRequests.push(new URL(r.url()).pathname);
  });
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => Reflect.get(globalThis, '__tandemResult') !== undefined, undefined, {
    timeout: 30_000,
  });
  const result: unknown = await page.evaluate(() => Reflect.get(globalThis, '__tandemResult'));
  const [small, large] = [expected(64), expected(256)];
  expect(result).toMatchObject({
    isolated: true,
    error: '',
    single: { sum: small.sum, head: small.head, parallelOps: 0 },
    threaded: { sum: large.sum, head: large.head, parallelOps: 1 },
  });
  expect(JSON.stringify(result)).toMatch(/"threaded":\{"device":"[^"]*2 threads/);
  expect(wasmRequests.every((p) => p.startsWith('/assets/'))).toBe(true);
  expect(wasmRequests.length).toBeGreaterThanOrEqual(2);
  console.log(
    `built page: ${JSON.stringify(result)}; emitted: ${emitted.join(', ')}; fetched: ${wasmRequests.join(', ')}`,
  );
  expect(errors).toEqual([]);
});
