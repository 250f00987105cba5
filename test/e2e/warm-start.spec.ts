// Warm start in Chromium (issue 31): the warm-start page (page/warm-start.ts) loaded in a fresh context (IndexedDB
// empty: cold), then reloaded in the same context (warm: createEngine() loads the profile the first load's dispose()
// saved). Asserted: behaviour only (no profile-loaded notice cold, one warm, no profile store failure, outputs agree
// with @tandem/reference in Node, no page errors). Printed, never asserted: createEngine()'s time, the time from
// createEngine() to the first call served by each case's faster backend (the page's own oracle decides which is
// faster), and how many of the auto calls ran on it, cold and warm side by side; beside them a third load, a reload
// after the profile database was deleted, which tells the profile's part from the browser's caches'.
import type { Page } from '@playwright/test';
import { add, matmul, softmax } from '@tandem/reference';
import { BASE_FLAGS, CHROMIUM_PATH, chromiumMissing, WEBGPU_FLAG } from './chromium.ts';
import { expect, test } from './fixtures.ts';
import { fromBase64 } from './report.ts';
import {
  HEADLINE_CASE,
  inputOf,
  isWarmStartReport,
  PRIMED_GLOBAL,
  RESULT_GLOBAL,
  WARM_START_CASES,
  WORKLOAD_CALLS,
  type WarmStartCase,
  type WarmStartReport,
} from './warm-start-cases.ts';

const missing = chromiumMissing();
test.skip(missing !== undefined, missing ?? '');
test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...BASE_FLAGS, WEBGPU_FLAG] } });

type Report = Extract<WarmStartReport, { ok: true }>;

/** Waits for the page's report (it runs once per load) and returns it. */
async function reportOf(page: Page, timeoutMs: number): Promise<Report> {
  await page.waitForFunction((name) => Reflect.get(globalThis, name) !== undefined, RESULT_GLOBAL, {
    timeout: timeoutMs,
    polling: 250,
  });
  const payload: unknown = await page.evaluate((name) => Reflect.get(globalThis, name), RESULT_GLOBAL);
  if (!isWarmStartReport(payload))
    throw new Error(`the page sent a malformed report: ${JSON.stringify(payload).slice(0, 300)}`);
  if (!payload.ok) throw new Error(`the page failed: ${payload.error}`);
  return payload;
}

/** Case `c`'s output from @tandem/reference on the inputs the page built. */
function expected(c: WarmStartCase): Float32Array {
  const [a, b] = [inputOf(c, 0), c.shapes.length > 1 ? inputOf(c, 1) : undefined];
  const [rows = 0, cols = 0] = c.shapes[0] ?? [];
  if (c.op === 'softmax') return softmax(a, rows, cols, false);
  if (b === undefined) throw new Error(`${c.name}: two inputs expected`);
  return c.op === 'add' ? add(a, b) : matmul(a, b, rows, cols, c.shapes[1]?.[1] ?? 0);
}

/** Indices where `actual` is off `want` by more than 1e-6 + 1e-4 * |want| (matmul and add are exact integers). */
function mismatches(actual: Float32Array, want: Float32Array): string[] {
  if (actual.length !== want.length) return [`length ${actual.length}, expected ${want.length}`];
  const off: string[] = [];
  for (let i = 0; i < want.length && off.length < 3; i++) {
    const w = want[i] ?? 0;
    const v = actual[i] ?? 0;
    if (!(Math.abs(v - w) <= 1e-6 + 1e-4 * Math.abs(w))) off.push(`[${i}] ${v}, expected ${w}`);
  }
  return off;
}

/** Each case's first auto output agrees with the reference. */
function expectOutputs(run: string, report: Report): void {
  for (const c of WARM_START_CASES) {
    const figures = report.cases.find((f) => f.name === c.name);
    expect(figures, `${run}: ${c.name} reported`).toBeDefined();
    if (figures === undefined) continue;
    const bytes = fromBase64(figures.output);
    const actual = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(mismatches(actual, expected(c)), `${run}: ${c.name} (served by ${figures.firstBackend})`).toEqual([]);
  }
}

const ms = (v: number | null): string => (v === null ? 'never' : `${v.toFixed(0)} ms`);
const ratio = (warm: number | null, cold: number | null): string =>
  warm === null || cold === null || cold === 0 ? 'n/a' : (warm / cold).toFixed(2);

/** When every case had been served once by its faster backend, ms since createEngine(); null if one never was. */
function everyCaseOnFaster(report: Report): number | null {
  let latest = 0;
  for (const c of report.cases) {
    if (c.firstOnFasterMs === null) return null;
    latest = Math.max(latest, c.firstOnFasterMs);
  }
  return latest;
}

/** A case's oracle medians, e.g. 'wasm 4.8 / webgpu 106.8 ms'. */
const medians = (c: Report['cases'][number]): string =>
  `${Object.entries(c.medianMs)
    .map(([b, v]) => `${b} ${v.toFixed(1)}`)
    .join(' / ')} ms`;

/** One line of a run's figures. */
function line(run: string, report: Report): string {
  const head = report.cases.find((c) => c.name === HEADLINE_CASE);
  const loaded = report.notices.some((n) => n.kind === 'profile-loaded');
  const firsts = report.cases
    .map(
      (c) =>
        `${c.name} ${c.firstBackend}/${c.firstReason} (faster ${c.faster}: ${medians(c)}; on it ${ms(c.firstOnFasterMs)})`,
    )
    .join('; ');
  return (
    `${run}: createEngine ${ms(report.createEngineMs)}; ${HEADLINE_CASE} on its faster backend (${head?.faster}) ` +
    `at ${ms(head?.firstOnFasterMs ?? null)}; every case on its faster backend by ${ms(everyCaseOnFaster(report))}; ` +
    `${report.onFaster}/${report.calls.length} calls on the faster backend; workload done at ${ms(report.workloadEndMs)}; ` +
    `profile-loaded ${loaded ? 'yes' : 'no'}; profile warm-ups ${report.profileWarmUps}; first calls: ${firsts}`
  );
}

/** In the page: deletes the engine's IndexedDB database ("tandem"); resolves true once deleted. */
const DELETE_PROFILES = `new Promise((resolve, reject) => {
  const request = indexedDB.deleteDatabase('tandem');
  request.onerror = () => reject(new Error(String(request.error)));
  request.onblocked = () => reject(new Error('deleting the tandem database was blocked'));
  request.onsuccess = () => resolve(true);
})`;

test('a reload starts from the profile the first load saved in IndexedDB (figures cold vs warm)', async ({
  page,
  browser,
  pageServer,
}) => {
  test.setTimeout(600_000);
  const url = `${pageServer.url}warm-start.html`;
  // Vite's dev server transforms each module on its first request: a throwaway context loads them all first, so
  // that work does not count against the cold run alone.
  const primer = await browser.newContext();
  try {
    const primePage = await primer.newPage();
    await primePage.goto(`${url}?prime`);
    await primePage.waitForFunction((name) => Reflect.get(globalThis, name) !== undefined, PRIMED_GLOBAL, {
      timeout: 120_000,
    });
    expect(await primePage.evaluate((name) => Reflect.get(globalThis, name), PRIMED_GLOBAL)).toBe(true);
  } finally {
    await primer.close();
  }

  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
  });

  // Cold: a fresh context, IndexedDB empty. Warm: a reload, which finds what the cold load's dispose() saved.
  // Control: the database deleted, then a reload (the browser's caches as warm as the warm run's, no profile).
  await page.goto(url);
  const cold = await reportOf(page, 220_000);
  await page.reload();
  const warm = await reportOf(page, 220_000);
  expect(await page.evaluate(DELETE_PROFILES)).toBe(true);
  await page.reload();
  const control = await reportOf(page, 220_000);

  const runs = [
    ['cold', cold],
    ['warm', warm],
    ['reload, no profile', control],
  ] as const;
  for (const [run, report] of runs) {
    expect(report.backends.find((b) => b.name === 'webgpu')?.available, `${run}: WebGPU with ${WEBGPU_FLAG}`).toBe(
      true,
    );
    expect(report.calls).toHaveLength(WORKLOAD_CALLS);
    expect(report.storedIn, `${run}: the profile is kept in IndexedDB`).toMatch(/IndexedDB/);
    expect(report.notices.filter((n) => n.kind === 'profile-store-failed' || n.kind === 'profile-ignored')).toEqual([]);
    expectOutputs(run, report);
  }
  expect(
    cold.notices.filter((n) => n.kind === 'profile-loaded'),
    'a first visit has no profile',
  ).toEqual([]);
  expect(warm.notices.filter((n) => n.kind === 'profile-loaded')).toEqual([
    expect.objectContaining({ detail: expect.stringMatching(/IndexedDB tandem\/profiles/) }),
  ]);
  expect(
    control.notices.filter((n) => n.kind === 'profile-loaded'),
    'the database was deleted',
  ).toEqual([]);

  const head = (r: Report) => r.cases.find((c) => c.name === HEADLINE_CASE)?.firstOnFasterMs ?? null;
  const ratios = (r: Report, base: Report, vs: string) =>
    `${vs}: ${HEADLINE_CASE} on its faster backend ${ratio(head(r), head(base))}; every case on its faster backend ${ratio(everyCaseOnFaster(r), everyCaseOnFaster(base))}; createEngine ${ratio(r.createEngineMs, base.createEngineMs)}`;
  const lines = [
    ...runs.map(([run, report]) => line(run, report)),
    ratios(warm, cold, 'warm/cold'),
    ratios(warm, control, 'warm/(reload, no profile)'),
  ];
  for (const l of lines) console.log(l);
  for (const [run, report] of runs)
    console.log(`${run} calls: ${report.calls.map((c) => `${c.backend[0]}${c.endMs.toFixed(0)}`).join(' ')}`);
  for (const n of warm.notices.filter((n) => n.kind === 'profile-loaded'))
    console.log(`warm profile-loaded: ${n.detail}`);
  if (consoleErrors.length > 0) console.log(`console errors: ${consoleErrors.join(' | ')}`);
  test.info().annotations.push(...lines.map((description) => ({ type: 'warm start', description })));
  expect(problems).toEqual([]);
});
