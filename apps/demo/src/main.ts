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
import type { Replies } from './worker/protocol.ts';

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
function wireTelemetry(client: EngineClient): { started: (info: Replies['start']) => void } {
  const table = new TelemetryTable(
    byId('telemetry-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('fallback-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('notices', HTMLUListElement),
    byId('telemetry-counts', HTMLSpanElement),
  );
  const badges = byId('backends', HTMLUListElement);
  let chart: LiveChart | undefined;
  client.on((event) => {
    if (event.event === 'ops') {
      table.addAll(event.ops);
      for (const op of event.ops) chart?.add(op);
    } else if (event.event === 'notice') {
      table.addNotice(event.notice);
      showBackendBadges(badges, event.backends);
    }
  });
  return {
    started: (info) => {
      showBackendBadges(badges, info.backends);
      // The chart (and uPlot) load after the page's first task: evaluating them with it made one long task (issue 33).
      void import('./panels/live-chart.ts').then(({ LiveChart }) => {
        chart = new LiveChart(
          byId('live-chart', HTMLDivElement),
          0,
          info.backends.map((b) => b.name),
        );
      });
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

async function start(): Promise<void> {
  setStatus('starting', 'Starting the engine…');
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
  const backends = info.backends.filter((b) => b.available).map((b) => b.name);
  setStatus(
    'ready',
    `Ready: ${info.words.toLocaleString('en')} words, ${info.synsets.toLocaleString('en')} synsets; backends ${backends.join(', ')}; ${info.isolated ? 'cross-origin isolated (WASM threads on)' : 'not cross-origin isolated (WASM runs single-threaded)'}.`,
  );
}

start().catch((error: unknown) => setStatus('error', `The demo could not start. ${shownOf(error).sentence}`));
