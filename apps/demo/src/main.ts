// The demo page: builds the engine, wires the telemetry views, loads and validates the prepared data, then the
// panels. #status[data-state] goes starting -> loading -> ready (or error), which the browser tests wait on.
import { VectorOps } from '@tandem/memory';
import type { Strategy } from '@tandem/core';
import { loadGraph, loadManifest, loadWords } from './data/load-data.ts';
import { byId, el, messageOf } from './dom.ts';
import { createDemoEngine, type DemoEngine } from './engine-setup.ts';
import { backendColour } from './panels/backend-colours.ts';
import { setUpDeviceLossPanel } from './panels/device-loss-panel.ts';
import { LiveChart } from './panels/live-chart.ts';
import { setUpNearestPanel } from './panels/nearest-panel.ts';
import { setUpSpreadPanel } from './panels/spread-panel.ts';
import { setUpSweepPanel } from './panels/sweep-panel.ts';
import { TelemetryTable } from './panels/telemetry-table.ts';
import { setUpTraceDownload } from './panels/trace-download.ts';

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

window.addEventListener('error', (event) => reportPageError(`Uncaught: ${event.message}`));
window.addEventListener('unhandledrejection', (event) => reportPageError(`Unhandled rejection: ${messageOf(event.reason)}`));

function showBackends(demo: DemoEngine): void {
  const banner = byId('webgpu-status', HTMLParagraphElement);
  banner.dataset['webgpu'] = demo.webgpuStatus.available ? 'available' : 'unavailable';
  if (demo.webgpuStatus.available) {
    banner.hidden = true;
  } else {
    banner.textContent = `WebGPU is not available here (${demo.webgpuStatus.reason}), so everything runs on the CPU: WebAssembly (SIMD${crossOriginIsolated ? ', threads' : ''}).`;
    banner.hidden = false;
  }
  const list = byId('backends', HTMLUListElement);
  list.replaceChildren(
    ...demo.engine.backends().map((b) =>
      el('li', { 'data-backend': b.name, 'data-available': String(b.available), style: `border-color:${backendColour(b.name)}` }, [
        el('strong', { text: b.name }),
        ` ${b.kind} · ${b.available ? (b.device ?? '') : `unavailable: ${b.unavailableReason ?? ''}`}`,
      ]),
    ),
  );
}

function wireTelemetry(demo: DemoEngine): void {
  const telemetry = demo.engine.telemetry;
  const table = new TelemetryTable(
    byId('telemetry-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('fallback-table', HTMLTableElement).tBodies[0] ?? el('tbody'),
    byId('notices', HTMLUListElement),
    byId('telemetry-counts', HTMLSpanElement),
  );
  const chart = new LiveChart(byId('live-chart', HTMLDivElement), telemetry.originMs);
  for (const event of telemetry.opEvents()) {
    table.add(event);
    chart.add(event);
  }
  telemetry.subscribe((event) => {
    table.add(event);
    chart.add(event);
  });
  const refreshNotices = (): void => table.showNotices(telemetry.noticeEvents());
  refreshNotices();
  setInterval(refreshNotices, 500);
}

async function start(): Promise<void> {
  setStatus('starting', 'Starting the engine…');
  const demo = await createDemoEngine();
  const engine = demo.engine;
  showBackends(demo);
  wireTelemetry(demo);
  setUpTraceDownload(engine);
  setStatus('loading', 'Loading and checking the prepared data…');
  const manifest = await loadManifest();
  const [words, wordnet] = await Promise.all([loadWords(manifest), loadGraph(manifest)]);
  const ops = await VectorOps.create(engine, words.vectors, words.dim);
  const strategy = (): Strategy => {
    const value = byId('nearest-strategy', HTMLSelectElement).value;
    return value === 'gpu-preferred' || value === 'cpu-preferred' ? value : 'auto';
  };
  await setUpNearestPanel(engine, ops, words);
  byId('nearest-run', HTMLButtonElement).disabled = false;
  await setUpSpreadPanel(engine, wordnet, strategy);
  setUpDeviceLossPanel(demo, engine, words.vectors, words.dim);
  setUpSweepPanel(engine);
  const backends = engine.backends().filter((b) => b.available).map((b) => b.name);
  setStatus('ready', `Ready: ${manifest.words.count.toLocaleString('en')} words, ${manifest.wordnet.nodes.toLocaleString('en')} synsets; backends ${backends.join(', ')}${crossOriginIsolated ? '; cross-origin isolated (WASM threads on)' : '; not cross-origin isolated (WASM runs single-threaded)'}.`);
}

start().catch((error: unknown) => setStatus('error', `The demo could not start: ${messageOf(error)}`));
