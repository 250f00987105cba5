// Figures of the demo as people meet it (issue 33): per panel action, the longest main-thread task (the page's
// long-task observer) and the time to the action's first visible result; the first load's bytes and its time to
// "Ready" at 40 Mbit/s (CDP network throttling). demo.spec.ts and the load measurement both use these helpers.
import type { Browser, CDPSession, Page } from '@playwright/test';

/** One panel action's figures. */
export interface ActionFigures {
  /** What was done, e.g. 'nearest: gpu-preferred first search'. */
  readonly action: string;
  /** Time from the action to its first visible result, ms. */
  readonly firstResultMs: number;
  /** Time from the action until it was over, ms. */
  readonly doneMs: number;
  /** Longest main-thread task the long-task observer saw meanwhile (wall time), ms (0: none over 50 ms). */
  readonly longestTaskMs: number;
  /** Long tasks (> 50 ms of wall time) seen meanwhile. */
  readonly longTasks: number;
  /**
   * Longest main-thread task in CPU time (Chrome's trace: the renderer main thread's RunTask thread duration), ms:
   * what the page itself blocked, without the time the OS gave other processes on a loaded machine.
   */
  readonly longestTaskCpuMs: number;
  /** That task's wall time, ms. */
  readonly longestTaskCpuWallMs: number;
}

/** A trace event of Chrome's JSON trace (the fields read here). */
interface ChromeEvent {
  readonly name?: string;
  readonly ph?: string;
  readonly pid?: number;
  readonly tid?: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: { readonly name?: string };
}

/** The longest task of the renderer's main thread in a Chrome trace, by thread (CPU) time, ms. */
export function longestMainThreadTask(trace: Buffer): { cpuMs: number; wallMs: number } {
  const parsed: unknown = JSON.parse(trace.toString('utf8'));
  const events: ChromeEvent[] = Array.isArray(parsed) ? parsed : typeof parsed === 'object' && parsed !== null && Array.isArray(Reflect.get(parsed, 'traceEvents')) ? Reflect.get(parsed, 'traceEvents') : [];
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  let best = { cpuMs: 0, wallMs: 0 };
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'RunTask' || !mains.has(`${e.pid}:${e.tid}`)) continue;
    const cpuMs = (e.tdur ?? e.dur ?? 0) / 1000;
    if (cpuMs > best.cpuMs) best = { cpuMs, wallMs: (e.dur ?? 0) / 1000 };
  }
  return best;
}

/** Installs the long-task observer before the page's scripts run (call before page.goto). */
export async function observeLongTasks(page: Page): Promise<void> {
  // As source text: it runs in the page, whose PerformanceObserver knows 'longtask' (Node's types do not).
  await page.addInitScript({
    content: `{
      const seen = [];
      globalThis.__longTasks = seen;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) seen.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: 'longtask', buffered: true });
    }`,
  });
}

/** Long tasks that started at or after `fromEpochMs` (wall clock: a navigation restarts the page's own clock). */
async function longTasksSince(page: Page, fromEpochMs: number): Promise<number[]> {
  return page.evaluate((from) => {
    const seen: unknown = Reflect.get(globalThis, '__longTasks');
    if (!Array.isArray(seen)) return [];
    return seen.filter((t: { start: number }) => performance.timeOrigin + t.start >= from).map((t: { duration: number }) => t.duration);
  }, fromEpochMs);
}

/**
 * Runs `act`, waits for `firstResult` then `done` (each a promise-returning wait), and returns the figures. The
 * long tasks counted are those that started after `act` began, until `done` resolved.
 */
export async function measureAction(browser: Browser, page: Page, action: string, act: () => Promise<void>, firstResult: () => Promise<void>, done: () => Promise<void> = firstResult): Promise<ActionFigures> {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  const t0 = Date.now();
  let trace: Buffer | undefined;
  try {
    await act();
    await firstResult();
    const first = Date.now();
    await done();
    const end = Date.now();
    // Tasks still running when `done` resolved show up once they end: give them a moment.
    await page.waitForTimeout(100);
    trace = await browser.stopTracing();
    const tasks = await longTasksSince(page, t0);
    const cpu = longestMainThreadTask(trace);
    return { action, firstResultMs: first - t0, doneMs: end - t0, longestTaskMs: Math.max(0, ...tasks), longTasks: tasks.length, longestTaskCpuMs: cpu.cpuMs, longestTaskCpuWallMs: cpu.wallMs };
  } finally {
    if (trace === undefined) await browser.stopTracing();
  }
}

/** Bytes on the wire (encoded: after compression) of every response, counted through CDP. */
export async function countBytes(cdp: CDPSession): Promise<() => { bytes: number; requests: number }> {
  let bytes = 0;
  let requests = 0;
  await cdp.send('Network.enable');
  cdp.on('Network.loadingFinished', (event) => {
    bytes += event.encodedDataLength;
    requests++;
  });
  return () => ({ bytes, requests });
}

/** Throttles the page's network to `mbit` Mbit/s each way with `latencyMs` round trip, cache off. */
export async function throttle(cdp: CDPSession, mbit: number, latencyMs: number): Promise<void> {
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const bytesPerSecond = (mbit * 1e6) / 8;
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: latencyMs, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
}
