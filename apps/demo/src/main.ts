// The demo page: starts the engine worker (the engine, the data and every computation live there), shows the
// backends and the telemetry it sends, loads the data with its progress, then the panels. The words come first: the
// nearest-words panel works while WordNet is still arriving. #status[data-state] goes starting -> loading -> ready
// (or error), which the browser tests wait on.
import { byId, el, formatMB } from './dom.ts';
import { shownOf } from './errors-shown.ts';
import { showBackendBadges } from './panels/backend-badges.ts';
import { setUpDeviceLossPanel } from './panels/device-loss-panel.ts';
import type { LiveChart } from './panels/live-chart.ts';
import { setUpNearestPanel } from './panels/nearest-panel.ts';
import { setUpSpreadPanel } from './panels/spread-panel.ts';
import { setUpSweepPanel } from './panels/sweep-panel.ts';
import { TelemetryTable } from './panels/telemetry-table.ts';
import { setUpTraceDownload } from './panels/trace-download.ts';
import { EngineClient } from './worker/client.ts';
import type { Replies, ShownOp } from './worker/protocol.ts';

/** Attempts kept for the live chart until it is made (it shows the newest 600). */
const CHART_BACKLOG = 600;

const status = byId('status', HTMLParagraphElement);

function setStatus(state: 'starting' | 'loading' | 'ready' | 'error', text: string): void {
  status.dataset['state'] = state;
  status.textContent = text;
}

function reportPageError(text: string): void {
  const box = byId('page-error', HTMLParagraphElement);
  box.textContent = text;
  box.hidden = false;
}

window.addEventListener('error', (event) => reportPageError(`Something failed on the page: ${event.message}`));
window.addEventListener('unhandledrejection', (event) =>
  reportPageError(`Something failed on the page: ${shownOf(event.reason).sentence}`),
);

/** The WebGPU banner: why there is none, or that the one here is a software GPU. */
function showWebGpu(info: Replies['start']): void {
  const banner = byId('webgpu-status', HTMLParagraphElement);
  banner.dataset['webgpu'] = info.webgpu.available ? 'available' : 'unavailable';
  const software = info.backends.some((b) => b.name === 'webgpu' && b.available && b.software);
  const cpu = `WebAssembly with SIMD${info.isolated ? ' and threads' : ''}`;
  if (!info.webgpu.available)
    banner.textContent = `WebGPU is not available here — ${info.webgpu.why}. Everything runs on the CPU, in ${cpu}.`;
  else if (software)
    banner.textContent = `WebGPU runs on ${info.webgpu.why} here: a software GPU, emulated on the CPU. Expect it to lose to ${cpu}; the scheduler learns that and keeps work off it.`;
  banner.hidden = info.webgpu.available && !software;
}

/** Listens to the worker's telemetry from the start (notices of the engine's own start come before its reply). */
function wireTelemetry(client: EngineClient): {
  started: (info: Replies['start']) => void;
  ready: () => void;
} {
  const table = new TelemetryTable(
    byId('telemetry-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('fallback-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('notices', HTMLUListElement),
    byId('telemetry-counts', HTMLSpanElement),
  );
  const badges = byId('backends', HTMLUListElement);
  let chart: LiveChart | undefined;
  /** Attempts that came before the chart was made (the newest CHART_BACKLOG of them). */
  let backlog: ShownOp[] = [];
  let makeChart = (): void => {};
  client.on((event) => {
    if (event.event === 'ops') {
      table.addAll(event.ops);
      if (chart !== undefined) for (const op of event.ops) chart.add(op);
      else backlog = [...backlog, ...event.ops].slice(-CHART_BACKLOG);
    } else if (event.event === 'notice') {
      table.addNotice(event.notice);
      showBackendBadges(badges, event.backends);
    }
  });
  return {
    started: (info) => {
      showBackendBadges(badges, info.backends);
      // The chart (and uPlot) are made once the page is ready and idle, or when the chart comes near the view if
      // that is sooner; not at load: making uPlot's first chart costs 20-80 ms of script on a loaded machine
      // (compiling and running its constructor), which was the page's longest task at load (issue 33). Made ahead
      // of the first sweep, whose chart would pay it otherwise.
      const host = byId('live-chart', HTMLDivElement);
      let asked = false;
      makeChart = () => {
        if (asked) return;
        asked = true;
        near.disconnect();
        void import('./panels/live-chart.ts').then(({ LiveChart }) => {
          chart = new LiveChart(
            host,
            0,
            info.backends.map((b) => b.name),
          );
          for (const op of backlog) chart.add(op);
          backlog = [];
        });
      };
      const near = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && makeChart(), {
        rootMargin: '200px',
      });
      near.observe(host);
    },
    ready: () => {
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => makeChart(), { timeout: 2000 });
      else setTimeout(() => makeChart(), 500);
    },
  };
}

/** Shows the data's download progress in the status line and the progress bar. */
function showProgress(client: EngineClient): void {
  const bar = byId('load-progress', HTMLProgressElement);
  client.on((event) => {
    if (event.event !== 'progress') return;
    bar.hidden = event.loaded >= event.total;
    bar.max = event.total;
    bar.value = event.loaded;
    if (status.dataset['state'] === 'loading')
      status.textContent = `Loading the data: ${formatMB(event.loaded)} of ${formatMB(event.total)} (${event.file})…`;
  });
}

/**
 * Shows the panels (index.html's <main hidden> and its hidden sections) one per frame, after the header's first
 * frame, and resolves once the last has been laid out and painted. All at once, the page's first style and layout
 * (the first text shaping, the form controls' styles) made one task of 45-52 ms of CPU at load (issue 33), and on two
 * cores, beside the browser's own start, a task took 3-7x its CPU time in wall time. The engine worker starts after
 * that, so the layout does not wait for it either. Nothing in the panels works before the engine starts.
 */
function showPanels(): Promise<void> {
  const afterFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return (async () => {
    await afterFrame();
    const main = document.querySelector('main');
    if (main === null) return;
    main.hidden = false;
    for (const section of main.querySelectorAll('section')) {
      await afterFrame();
      section.hidden = false;
    }
    await afterFrame();
  })();
}

async function start(): Promise<void> {
  setStatus('starting', 'Starting the engine…');
  await showPanels();
  const client = new EngineClient();
  showProgress(client);
  const telemetry = wireTelemetry(client);
  const info = await client.call('start', { baseUrl: document.baseURI, webgpu: 'gpu' in navigator });
  showWebGpu(info);
  telemetry.started(info);
  setUpTraceDownload(client);
  setStatus('loading', 'Loading the data…');
  await client.call('loadWords', {});
  status.dataset['words'] = 'ready';
  const wordnetLoaded = client.call('loadWordNet', {}); // arrives while the first search runs
  await setUpNearestPanel(client, info.words);
  setUpDeviceLossPanel(client, info);
  setUpSweepPanel(client);
  await wordnetLoaded;
  await setUpSpreadPanel(client, info.synsets, info.edges);
  telemetry.ready();
  const backends = info.backends.filter((b) => b.available).map((b) => b.name);
  setStatus(
    'ready',
    `Ready: ${info.words.toLocaleString('en')} words, ${info.synsets.toLocaleString('en')} synsets; backends ${backends.join(', ')}; ${info.isolated ? 'cross-origin isolated (WASM threads on)' : 'not cross-origin isolated (WASM runs single-threaded)'}.`,
  );
}

start().catch((error: unknown) => setStatus('error', `The demo could not start. ${shownOf(error).sentence}`));
