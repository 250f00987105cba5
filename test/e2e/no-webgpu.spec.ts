// The page without WebGPU still answers every case on WASM (and the reference's plumbing case), and says why WebGPU
// is unavailable (WASM that does not start fails under CI, one [skip] line elsewhere):
// (1) navigator.gpu hidden before any page script runs; (2) Chromium launched without --enable-unsafe-webgpu
// (navigator.gpu exists there but requestAdapter() resolves null).
import { chromium } from '@playwright/test';
import { HOW_TO_ENABLE, requireOrSkip } from '../support/requirements.ts';
import { checkRun } from './check-report.ts';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { expect, loadReport, test } from './fixtures.ts';
import type { PageReport } from './report.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] } });

/** Every case ran on WASM and agrees with Node (as does the reference's plumbing case); WebGPU did not run. */
function expectCpuOnly(report: PageReport): void {
  const wasm = requireOrSkip(
    'wasm backend in Chromium',
    report.unavailable.find((u) => u.backend === 'wasm')?.reason,
    HOW_TO_ENABLE.wasm,
  );
  expect(report.runs.map((r) => r.backend)).toEqual([...(wasm ? ['wasm'] : []), 'reference']);
  expect(report.unavailable).toContainEqual({ backend: 'webgpu', reason: report.webgpu.detail });
  for (const run of report.runs) {
    const verdict = checkRun(run);
    expect(verdict.problems).toEqual([]);
    expect(verdict.agreed).toBe(run.cases.length);
  }
}

test('navigator.gpu hidden: every case on WASM, and the reason', async ({ page, pageServer }) => {
  await page.addInitScript(() => {
    // Runs in the page before its scripts: Navigator.prototype.gpu is a configurable getter.
    const nav: unknown = Reflect.get(globalThis, 'navigator');
    const proto: unknown = typeof nav === 'object' && nav !== null ? Reflect.getPrototypeOf(nav) : null;
    if (typeof proto === 'object' && proto !== null) Reflect.deleteProperty(proto, 'gpu');
  });
  const report = await loadReport(page, pageServer.url, 60_000);
  expect(report.webgpu).toEqual({
    available: false,
    detail: 'navigator.gpu is not available in this browser or context',
  });
  expectCpuOnly(report);
});

test(`Chromium without ${WEBGPU_FLAG}: every case on WASM, and the reason`, async ({ pageServer }) => {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS] });
  try {
    const page = await browser.newPage();
    const report = await loadReport(page, pageServer.url, 60_000);
    expect(report.webgpu.available).toBe(false);
    expect(report.webgpu.detail).toMatch(/^WebGPU init failed: .*adapter/i);
    console.log(`WebGPU without ${WEBGPU_FLAG}: ${report.webgpu.detail}`);
    expectCpuOnly(report);
  } finally {
    await browser.close();
  }
});
