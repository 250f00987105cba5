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
   * Longest main-thread task in CPU time less the garbage collections inside it (Chrome's trace: the renderer main
   * thread's RunTask thread duration), ms: what the page's own work blocked, without the time the OS gave other
   * processes on a loaded machine.
   */
  readonly longestTaskCpuMs: number;
  /** That task's wall time, ms. */
  readonly longestTaskCpuWallMs: number;
  /** The longest garbage collection on the main thread meanwhile, ms (reported, not counted: see decisions.md). */
  readonly longestGcMs: number;
  /** What ran inside the longest task: its largest nested events with their ms. */
  readonly inside: string;
}

/** A trace event of Chrome's JSON trace (the fields read here). */
interface ChromeEvent {
  readonly name?: string;
  readonly ph?: string;
  readonly pid?: number;
  readonly tid?: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: {
    readonly name?: string;
    readonly data?: FrameData & { readonly frames?: readonly FrameData[] };
    /** Layout's: how many layout objects it had to lay out, of how many. */
    readonly beginData?: { readonly dirtyObjects?: number; readonly totalObjects?: number };
  };
}

/** A frame in Chrome's trace metadata (TracingStartedInBrowser, FrameCommittedInBrowser). */
interface FrameData {
  readonly processId?: number;
  readonly url?: string;
}

/**
 * The renderer processes of the traced page's frames, from the trace's own metadata (the frames tracing started
 * with, and each frame committed since: a navigation may move the page to a new process); undefined when the trace
 * names none. Chrome's own renderers trace beside the page's: new headless Chromium loads its omnibox popup
 * (chrome://omnibox-popup.top-chrome) in each new window, a 100-250 ms task of module evaluation that is not the
 * page's.
 */
function pageProcesses(events: readonly ChromeEvent[]): ReadonlySet<number> | undefined {
  const pids = new Set<number>();
  const add = (frame: FrameData | undefined): void => {
    if (frame?.processId !== undefined && !/^(chrome|chrome-untrusted|devtools):/.test(frame.url ?? ''))
      pids.add(frame.processId);
  };
  for (const e of events) {
    if (e.name === 'TracingStartedInBrowser') for (const frame of e.args?.data?.frames ?? []) add(frame);
    else if (e.name === 'FrameCommittedInBrowser') add(e.args?.data);
  }
  return pids.size > 0 ? pids : undefined;
}

/** For a Layout event: " (dirty of total objects)", what made it long; else nothing. */
function layoutObjects(e: ChromeEvent): string {
  const data = e.args?.beginData;
  return e.name === 'Layout' && data?.totalObjects !== undefined
    ? ` (${data.dirtyObjects ?? '?'} of ${data.totalObjects} objects)`
    : '';
}

/** Top-level garbage collections in Chrome's trace (their V8.GC_* children are inside them). */
const GC_EVENTS: ReadonlySet<string> = new Set(['MinorGC', 'MajorGC']);

/**
 * The longest task of the page renderer's main thread in a Chrome trace by thread (CPU) time less the garbage
 * collections inside it, ms, with its wall time; and the longest garbage collection. Tasks that ran nothing of the
 * page (no nested event at all) are Chrome's own and left out, and so are Chrome's own renderers (pageProcesses).
 */
export function longestMainThreadTask(trace: Buffer): { cpuMs: number; wallMs: number; gcMs: number; inside: string } {
  const parsed: unknown = JSON.parse(trace.toString('utf8'));
  const events: ChromeEvent[] = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' && parsed !== null && Array.isArray(Reflect.get(parsed, 'traceEvents'))
      ? Reflect.get(parsed, 'traceEvents')
      : [];
  const pids = pageProcesses(events);
  const mains = new Set(
    events
      .filter(
        (e) =>
          e.ph === 'M' &&
          e.name === 'thread_name' &&
          e.args?.name === 'CrRendererMain' &&
          (pids === undefined || pids.has(e.pid ?? -1)),
      )
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const onMain = events.filter((e) => e.ph === 'X' && mains.has(`${e.pid}:${e.tid}`));
  const gcs = onMain.filter((e) => GC_EVENTS.has(e.name ?? ''));
  let best = { cpuMs: 0, wallMs: 0, gcMs: Math.max(0, ...gcs.map((g) => (g.dur ?? 0) / 1000)), inside: '' };
  let longest: ChromeEvent | undefined;
  // Events by start time, to find what each task ran.
  const byStart = [...onMain].sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  const ranInside = (task: ChromeEvent): boolean => {
    const start = task.ts ?? 0;
    const end = start + (task.dur ?? 0);
    return byStart.some((n) => n !== task && n.name !== 'RunTask' && (n.ts ?? 0) >= start && (n.ts ?? 0) < end);
  };
  for (const e of onMain) {
    if (e.name !== 'RunTask') continue;
    const start = e.ts ?? 0;
    const end = start + (e.dur ?? 0);
    // A task that ran none of the page's script, style, layout or paint is Chrome's own (the trace's flush at
    // stopTracing is one: 70-80 ms after a long action, with nothing inside).
    if ((e.tdur ?? e.dur ?? 0) > 10_000 && !ranInside(e)) continue;
    const gcMs = gcs
      .filter((g) => (g.ts ?? 0) >= start && (g.ts ?? 0) + (g.dur ?? 0) <= end)
      .reduce((sum, g) => sum + (g.dur ?? 0) / 1000, 0);
    const cpuMs = Math.max(0, (e.tdur ?? e.dur ?? 0) / 1000 - gcMs);
    if (cpuMs > best.cpuMs) {
      best = { ...best, cpuMs, wallMs: (e.dur ?? 0) / 1000 };
      longest = e;
    }
  }
  if (longest !== undefined) {
    const start = longest.ts ?? 0;
    const end = start + (longest.dur ?? 0);
    const nested = onMain.filter(
      (n) => n !== longest && (n.ts ?? 0) >= start && (n.ts ?? 0) + (n.dur ?? 0) <= end && (n.dur ?? 0) >= 2000,
    );
    best = {
      ...best,
      inside: nested
        .slice(0, 8)
        .map((n) => `${n.name ?? '?'} ${((n.tdur ?? n.dur ?? 0) / 1000).toFixed(1)}${layoutObjects(n)}`)
        .join(', '),
    };
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
    return seen
      .filter((t: { start: number }) => performance.timeOrigin + t.start >= from)
      .map((t: { duration: number }) => t.duration);
  }, fromEpochMs);
}

/**
 * Runs `act`, waits for `firstResult` then `done` (each a promise-returning wait), and returns the figures. The
 * long tasks counted are those that started after `act` began, until `done` resolved.
 */
export async function measureAction(
  browser: Browser,
  page: Page,
  action: string,
  act: () => Promise<void>,
  firstResult: () => Promise<void>,
  done: () => Promise<void> = firstResult,
): Promise<ActionFigures> {
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
    return {
      action,
      firstResultMs: first - t0,
      doneMs: end - t0,
      longestTaskMs: Math.max(0, ...tasks),
      longTasks: tasks.length,
      longestTaskCpuMs: cpu.cpuMs,
      longestTaskCpuWallMs: cpu.wallMs,
      longestGcMs: cpu.gcMs,
      inside: cpu.inside,
    };
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
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: latencyMs,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
}
