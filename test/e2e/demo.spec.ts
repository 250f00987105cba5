// The demo app (apps/demo) in headless Chromium: with WebGPU (SwiftShader) nearest words are sensible and the
// spreading graph is drawn; "Lose the GPU" destroys the real GPUDevice mid-workload and the work carries on on
// the CPU with no error on the page and the fallback, with its reason, in the telemetry; the Chrome trace
// downloads; without WebGPU the page says so and runs on WASM; the results page renders. Screenshots of each go
// to test-results/screenshots/ and are attached to the test results.
//
// Served by Vite's dev server on the sources (TANDEM_DEMO_DIST=1: the built apps/demo/dist); data from
// apps/demo/public/data, prepared with 5,000 words first when there is none (see apps/demo/scripts/serve-demo.ts).
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, test as base, type Page, type TestInfo } from '@playwright/test';
import { startDemoServer, type DemoServer } from '../../apps/demo/scripts/serve-demo.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';

const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** `test` with a worker-scoped demo server and, per test, the page's errors (uncaught, and console errors). */
const test = base.extend<{ pageProblems: string[] }, { demo: DemoServer }>({
  demo: [
    async ({}, use) => {
      const server = await startDemoServer();
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  pageProblems: async ({ page }, use) => {
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
    });
    await use(problems);
  },
});
const { expect } = test;

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] }, viewport: { width: 1200, height: 900 } });

/** Opens the demo and waits until it is ready (its status says why when it is not). */
async function openDemo(page: Page, url: string): Promise<void> {
  await page.goto(url);
  const status = page.locator('#status');
  await expect(status).toHaveAttribute('data-state', /ready|error/, { timeout: 60_000 });
  expect(await status.textContent()).toMatch(/^Ready/);
}

/** The words listed in a result column. */
async function hitsOf(page: Page, column: '#nearest-brute' | '#nearest-hnsw'): Promise<string[]> {
  return page.locator(`${column} .hits li`).evaluateAll((items) => items.map((li) => li.getAttribute('data-word') ?? ''));
}

/** Runs a nearest-word query and waits for its answer. */
async function query(page: Page, text: string): Promise<void> {
  const before = await page.locator('#nearest-brute .timing').textContent();
  await page.fill('#nearest-query', text);
  await page.click('#nearest-run');
  await expect(page.locator('#nearest-run')).toBeEnabled();
  await expect(page.locator('#nearest-error')).toBeHidden();
  if (before !== null) await expect(page.locator('#nearest-brute .timing')).not.toHaveText(before);
}

async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = `${SCREENSHOTS}demo-${name}.png`;
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(`demo-${name}`, { path: file, contentType: 'image/png' });
}

test('with WebGPU (SwiftShader): sensible nearest words by brute force and HNSW, and the spreading graph', async ({ page, demo, pageProblems }, testInfo) => {
  await openDemo(page, demo.url);
  await expect(page.locator('#webgpu-status')).toHaveAttribute('data-webgpu', 'available');
  await expect(page.locator('#backends li[data-backend="webgpu"]')).toHaveAttribute('data-available', 'true');
  await expect(page.locator('#backends li[data-backend="wasm"]')).toHaveAttribute('data-available', 'true');

  // The default query, king - man + woman: queen first, by both methods; the query's own words left out.
  const brute = await hitsOf(page, '#nearest-brute');
  expect(brute).toHaveLength(10);
  expect(brute[0]).toBe('queen');
  expect(brute).not.toContain('king');
  expect((await hitsOf(page, '#nearest-hnsw')).slice(0, 3)).toContain('queen');
  await expect(page.locator('#nearest-brute .ran-on li').first()).toContainText(/^cosineSimilarity on (wasm|webgpu|reference)/);

  await query(page, 'paris - france + germany');
  expect((await hitsOf(page, '#nearest-brute')).slice(0, 3)).toContain('berlin');
  await page.selectOption('#nearest-strategy', 'gpu-preferred');
  await query(page, 'berlin');
  expect((await hitsOf(page, '#nearest-brute')).slice(0, 10)).toContain('munich');
  await expect(page.locator('#nearest-brute .ran-on li').first()).toContainText(/^cosineSimilarity on webgpu/);
  expect(Number(await page.locator('#nearest-overlap').getAttribute('data-overlap'))).toBeGreaterThanOrEqual(0.8);

  // Spreading activation from dog (n:02086723 in WordNet 3.1): a drawn graph around it.
  await expect(page.locator('#spread-summary')).toContainText('dog, domestic dog');
  expect(Number(await page.locator('#spread-summary').getAttribute('data-nodes'))).toBeGreaterThan(50);
  expect(await page.locator('#spread-graph circle').count()).toBeGreaterThan(50);
  await expect(page.locator('#spread-graph text', { hasText: /^dog$/ })).toHaveCount(1);

  // Latency against size on every backend alone and with auto; the crossover (or its absence) is stated.
  await page.click('#sweep-run');
  await expect(page.locator('#sweep-progress')).toHaveText(/^done: \d+ points$/, { timeout: 60_000 });
  await expect(page.locator('#sweep-chart canvas')).toHaveCount(1);
  await expect(page.locator('#sweep-crossover li')).toHaveText([/^webgpu (is slower than the CPU at every size|is faster than the CPU at every size|.*crossover at n = \d+)|^crossover at n = \d+: webgpu/]);

  await expect(page.locator('#telemetry-table tbody tr').first()).toBeVisible();
  await screenshot(page, testInfo, 'webgpu');
  expect(pageProblems).toEqual([]);
});

test('Lose the GPU: work carries on on the CPU, no error on the page, the fallback and its reason in the telemetry', async ({ page, demo, pageProblems }, testInfo) => {
  await openDemo(page, demo.url);
  await expect(page.locator('#lose-gpu')).toBeEnabled();
  await page.click('#lose-gpu');
  const status = page.locator('#device-loss-status');
  await expect(status).toHaveAttribute('data-state', 'lost', { timeout: 30_000 });
  await expect(status).toContainText(/GPUDevice destroyed with a call in flight, after \d+ steps \(\d+ calls on WebGPU\)/);
  await expect(status).toHaveAttribute('data-state', 'done', { timeout: 30_000 });

  // The workload went on: calls answered on the CPU, and no error reached it.
  await expect(status).toHaveAttribute('data-errors', '0');
  expect(await status.textContent()).toMatch(/answered by .*wasm \d+/);
  // A call that failed on WebGPU because the device was lost, answered by a CPU backend, with the reason.
  const fallback = page.locator('#fallback-table tr.event-fallback').first();
  await expect(fallback).toBeVisible();
  await expect(fallback).toHaveAttribute('data-reason', 'error-fallback');
  await expect(fallback).toHaveAttribute('data-backend', /^(wasm|reference)$/);
  await expect(fallback.locator('td.reason')).toContainText(/fallback after webgpu failed: .*device lost/);
  await expect(page.locator('#notices li[data-kind="backend-unhealthy"]').first()).toContainText('device lost');
  await expect(page.locator('#page-error')).toBeHidden();

  // After the loss the page still answers queries.
  await query(page, 'king - man + woman');
  expect((await hitsOf(page, '#nearest-brute'))[0]).toBe('queen');

  // The Chrome trace downloads and holds the attempts of both backends.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#trace-download')]);
  const trace: unknown = JSON.parse(await readFile(await download.path(), 'utf8'));
  const events: unknown = typeof trace === 'object' && trace !== null ? Reflect.get(trace, 'traceEvents') : undefined;
  expect(Array.isArray(events)).toBe(true);
  const threadNames = (Array.isArray(events) ? events : []).flatMap((e: unknown) => {
    const args: unknown = typeof e === 'object' && e !== null && Reflect.get(e, 'name') === 'thread_name' ? Reflect.get(e, 'args') : undefined;
    const name: unknown = typeof args === 'object' && args !== null ? Reflect.get(args, 'name') : undefined;
    return typeof name === 'string' ? [name] : [];
  });
  expect(threadNames).toEqual(expect.arrayContaining(['webgpu', 'wasm']));

  await page.locator('#device-loss').scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, 'device-loss');
  expect(pageProblems).toEqual([]);
});

test('without WebGPU (navigator.gpu hidden): says so and runs on WASM', async ({ page, demo, pageProblems }, testInfo) => {
  await page.addInitScript(() => {
    // Runs before the page's scripts: Navigator.prototype.gpu is a configurable getter.
    const nav: unknown = Reflect.get(globalThis, 'navigator');
    const proto: unknown = typeof nav === 'object' && nav !== null ? Reflect.getPrototypeOf(nav) : null;
    if (typeof proto === 'object' && proto !== null) Reflect.deleteProperty(proto, 'gpu');
  });
  await openDemo(page, demo.url);
  const banner = page.locator('#webgpu-status');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-webgpu', 'unavailable');
  await expect(banner).toContainText('WebGPU is not available here (navigator.gpu is not available in this browser or context)');
  await expect(banner).toContainText('WebAssembly');
  await expect(page.locator('#backends li[data-backend="webgpu"]')).toHaveAttribute('data-available', 'false');
  await expect(page.locator('#backends li[data-backend="wasm"]')).toHaveAttribute('data-available', 'true');

  expect((await hitsOf(page, '#nearest-brute'))[0]).toBe('queen');
  await expect(page.locator('#nearest-brute .ran-on li').first()).toContainText(/^cosineSimilarity on wasm/);
  expect(await page.locator('#spread-graph circle').count()).toBeGreaterThan(50);
  await expect(page.locator('#lose-gpu')).toBeDisabled();
  await expect(page.locator('#device-loss-status')).toContainText('No WebGPU device here');
  await expect(page.locator('#notices li[data-kind="backend-unavailable"]')).toContainText('navigator.gpu is not available');
  await screenshot(page, testInfo, 'no-webgpu');
  expect(pageProblems).toEqual([]);
});

test(`Chromium without ${WEBGPU_FLAG} (no adapter): says why and runs on WASM`, async ({ demo }) => {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await openDemo(page, demo.url);
    await expect(page.locator('#webgpu-status')).toHaveAttribute('data-webgpu', 'unavailable');
    await expect(page.locator('#webgpu-status')).toContainText(/adapter/i);
    expect((await hitsOf(page, '#nearest-brute'))[0]).toBe('queen');
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
});

test('corrupt data: the page refuses it and names the file', async ({ page, demo }) => {
  await page.route('**/data/wordnet-csr.bin', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 0xff; // one flipped byte in the edge weights
    await route.fulfill({ response, body });
  });
  await page.goto(demo.url);
  const status = page.locator('#status');
  await expect(status).toHaveAttribute('data-state', 'error', { timeout: 60_000 });
  await expect(status).toContainText('The demo could not start: DemoDataError: data/wordnet-csr.bin: checksum mismatch (the file is corrupt)');
});

test('results page: the copied bench results, or "no results yet"', async ({ page, demo, pageProblems }, testInfo) => {
  await page.goto(`${demo.url}results.html`);
  const status = page.locator('#results-status');
  await expect(status).toHaveAttribute('data-state', /ready|empty|error/, { timeout: 20_000 });
  const index: unknown = await (await page.request.get(`${demo.url}data/bench/index.json`)).json();
  const suites: unknown = typeof index === 'object' && index !== null ? Reflect.get(index, 'suites') : undefined;
  const count = Array.isArray(suites) ? suites.length : -1;
  if (count === 0) {
    await expect(status).toHaveAttribute('data-state', 'empty');
    await expect(status).toContainText('No results yet');
  } else {
    await expect(status).toHaveAttribute('data-state', 'ready');
    await expect(page.locator('section[data-suite]')).toHaveCount(count);
    await expect(page.locator('section[data-suite] table').first()).toBeVisible();
  }
  await screenshot(page, testInfo, 'results');
  expect(pageProblems).toEqual([]);
});
