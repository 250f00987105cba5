// Tandem in a user's Vite page: the packed tarballs installed into a new project outside the repository, built by
// `vite build` with no Tandem-specific configuration, and run in Chromium: WASM with threads when the page is
// cross-origin isolated, WebGPU on SwiftShader, the CPU when WebGPU is missing, and one thread (saying why) when the
// page is served without COOP/COEP, as most pages are.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, expect, test, type Page } from '@playwright/test';
import { consumerProject, type ConsumerProject } from '../consumers/support/project.ts';
import { readmeExample } from '../consumers/support/readme.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] } });

const page = (file: string): string =>
  readFileSync(new URL(`../consumers/fixtures/page/${file}`, import.meta.url), 'utf8');

/** What the page's main.js leaves in window.tandemResult. */
interface PageResult {
  readonly ok: boolean;
  readonly error?: string;
  readonly firstResultMs: number;
  readonly product: number[];
  readonly webgpuProduct: number[] | null;
  readonly autoProduct: number[];
  readonly crossOriginIsolated: boolean;
  readonly backends: Array<{
    name: string;
    available: boolean;
    device: string | null;
    software: boolean;
    reason: string | null;
    health: { state: string; reason?: string };
  }>;
}

let project: ConsumerProject | undefined;
let isolated: StaticServer | undefined;
let plain: StaticServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const files = {
    'index.html': page('index.html'),
    'main.js': page('main.js'),
    // The README's page example, as its own page of the same build.
    'readme.html':
      '<!doctype html><html><head><meta charset="utf-8"><title>README example</title></head><body><script type="module" src="./page.js"></script></body></html>',
    'page.js': readmeExample('packages/tandem/README.md', 'page.js'),
    'vite.config.js':
      "export default { build: { target: 'es2022', rollupOptions: { input: ['index.html', 'readme.html'] } } };\n",
  };
  project = await consumerProject('vite-page', { tarballs: ['tandem'], fromRegistry: ['vite', 'esbuild'], files });
  const built = await project.run('npx', ['vite', 'build', '--logLevel', 'warn']);
  if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
  const dist = path.join(project.dir, 'dist');
  // The README's esbuild recipe: bundle, copy the .wasm files beside the bundle, pass wasm.distUrl.
  const esbuilt = await project.run('npx', [
    'esbuild',
    'main.js',
    '--bundle',
    '--format=esm',
    '--outfile=dist/esbuild/main.js',
    '--log-level=warning',
  ]);
  if (esbuilt.code !== 0) throw new Error(`esbuild failed:\n${esbuilt.stderr}`);
  mkdirSync(path.join(dist, 'esbuild', 'tandem-wasm'));
  for (const f of readdirSync(path.join(project.dir, 'node_modules/@tandem/wasm/dist')).filter((n) =>
    n.endsWith('.wasm'),
  )) {
    copyFileSync(
      path.join(project.dir, 'node_modules/@tandem/wasm/dist', f),
      path.join(dist, 'esbuild', 'tandem-wasm', f),
    );
  }
  const options = "window.tandemEngineOptions = { wasm: { distUrl: new URL('./tandem-wasm/', location.href) } };";
  writeFileSync(
    path.join(dist, 'esbuild', 'index.html'),
    page('index.html').replace(
      '<script type="module" src="./main.js"></script>',
      `<script>${options}</script><script type="module" src="./main.js"></script>`,
    ),
  );
  isolated = await serveStatic(dist, true);
  plain = await serveStatic(dist, false);
});

test.afterAll(async () => {
  await isolated?.close();
  await plain?.close();
  project?.remove();
});

async function runPage(browserPage: Page, origin: string, folder = '/'): Promise<PageResult> {
  const errors: string[] = [];
  browserPage.on('pageerror', (e) => errors.push(e.message));
  await browserPage.goto(`${origin}${folder}`);
  await browserPage.waitForFunction(() => Reflect.get(globalThis, 'tandemResult') !== undefined, undefined, {
    timeout: 60_000,
  });
  const result: PageResult = await browserPage.evaluate(() => Reflect.get(globalThis, 'tandemResult'));
  expect(errors).toEqual([]);
  expect(result.error).toBeUndefined();
  expect(result.product).toEqual([7, 10, 15, 22]);
  expect(result.autoProduct).toEqual([7, 10, 15, 22]);
  return result;
}

const backend = (result: PageResult, name: string): PageResult['backends'][number] | undefined =>
  result.backends.find((b) => b.name === name);

test('vite build emits the .wasm kernels, and no Node-only code reaches the page', () => {
  const assets = readdirSync(path.join(project?.dir ?? '', 'dist', 'assets'));
  expect(assets.filter((f) => f.endsWith('.wasm'))).toHaveLength(4);
  // Vite replaces a Node built-in that browser code imports with a __vite-browser-external stub.
  expect(assets.filter((f) => f.startsWith('__vite-browser-external'))).toEqual([]);
  const code = assets
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(path.join(project?.dir ?? '', 'dist', 'assets', f), 'utf8'))
    .join('\n');
  for (const nodeOnly of ['node:fs', 'node:os', 'node:child_process', 'dawn.node', '@tandem/rocm', 'tandem_rocm'])
    expect(code).not.toContain(nodeOnly);
});

test("the README's page example shows its product and the backend that computed it", async ({ page: browserPage }) => {
  const errors: string[] = [];
  browserPage.on('pageerror', (e) => errors.push(e.message));
  await browserPage.goto(`${isolated?.origin ?? ''}/readme.html`);
  await expect(browserPage.locator('body')).toHaveText(/^7,10,15,22 on (wasm|webgpu)$/, { timeout: 60_000 });
  expect(errors).toEqual([]);
});

test('cross-origin isolated: WASM on two threads, WebGPU on SwiftShader, same products', async ({
  page: browserPage,
}) => {
  const result = await runPage(browserPage, isolated?.origin ?? '');
  expect(result.crossOriginIsolated).toBe(true);
  expect(backend(result, 'wasm')).toMatchObject({ available: true, health: { state: 'healthy' } });
  expect(backend(result, 'wasm')?.device).toMatch(/threads\.wasm, 2 threads/);
  expect(backend(result, 'webgpu')).toMatchObject({ available: true, software: true });
  expect(result.webgpuProduct).toEqual([7, 10, 15, 22]);
  console.log(`[consumer] Vite page: createEngine() to the first matmul result: ${result.firstResultMs.toFixed(1)} ms`);
});

test("esbuild with the README's recipe (the .wasm files copied, wasm.distUrl): WASM on two threads", async ({
  page: browserPage,
}) => {
  const result = await runPage(browserPage, isolated?.origin ?? '', '/esbuild/');
  expect(backend(result, 'wasm')).toMatchObject({ available: true, health: { state: 'healthy' } });
  expect(backend(result, 'wasm')?.device).toMatch(/threads\.wasm, 2 threads/);
});

test('served without COOP/COEP: one thread, and the backend says why', async ({ page: browserPage }) => {
  const result = await runPage(browserPage, plain?.origin ?? '');
  expect(result.crossOriginIsolated).toBe(false);
  expect(backend(result, 'wasm')).toMatchObject({ available: true, health: { state: 'degraded' } });
  expect(backend(result, 'wasm')?.health.reason).toMatch(/not cross-origin isolated\): running on one thread/);
});

test('WebGPU missing: the CPU answers, and WebGPU says why it is unavailable', async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] });
  try {
    const browserPage = await browser.newPage();
    await browserPage.addInitScript(() => {
      const nav: unknown = Reflect.get(globalThis, 'navigator');
      const proto: unknown = typeof nav === 'object' && nav !== null ? Reflect.getPrototypeOf(nav) : null;
      if (typeof proto === 'object' && proto !== null) Reflect.deleteProperty(proto, 'gpu');
    });
    const result = await runPage(browserPage, isolated?.origin ?? '');
    expect(backend(result, 'webgpu')).toMatchObject({
      available: false,
      reason: 'navigator.gpu is not available in this browser or context',
    });
    expect(result.webgpuProduct).toBeNull();
  } finally {
    await browser.close();
  }
});
