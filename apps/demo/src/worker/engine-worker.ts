// The demo's engine worker: the engine (WASM, WebGPU when the page has it, the reference), the prepared data and
// every computation the panels ask for. Nothing here runs on the page's main thread, so a long WASM kernel, the
// reference's matmul, SwiftShader's work or decoding 25 MB of data never freezes the page (issue 33 measured 0.2-4.9 s
// tasks there before). Requests are answered by id (protocol.ts); telemetry, notices and progress are events.
import { VectorOps } from '@tandem/memory';
import type { Engine } from '@tandem/core';
import { loadGraph, loadManifest, loadWords, type DemoGraph, type DemoWords } from '../data/load-data.ts';
import type { DemoManifest } from '../data/manifest.ts';
import { createDemoEngine, type DemoEngine } from '../engine-setup.ts';
import { LemmaIndex } from '../graph/lemma-index.ts';
import { runSweep, type SweepControl } from '../panels/sweep-measure.ts';
import { Workload } from '../panels/workload.ts';
import { compareNearest } from '../search/nearest.ts';
import { parseQuery } from '../search/query.ts';
import { reasonText } from '../search/reason-text.ts';
import { showError } from '../sentences.ts';
import { loseGpuDuringWorkload } from './loss.ts';
import type {
  BackendView,
  Replies,
  ReplyMessage,
  ReplyOf,
  RequestMessage,
  Requests,
  ShownOp,
  WorkerEvent,
} from './protocol.ts';
import { spreadFrom } from './spread.ts';

/** What the worker holds once started. */
interface State {
  /** The engine and its WebGPU backend. */
  readonly demo: DemoEngine;
  /** The page's base URL (data/ is next to it). */
  readonly baseUrl: string;
  /** The prepared data's manifest. */
  readonly manifest: DemoManifest;
  /** Bytes loaded so far, of all data files. */
  loaded: number;
  /** The words, once loaded. */
  words?: { readonly data: DemoWords; readonly ops: VectorOps; readonly workload: Workload };
  /** WordNet, once loaded. */
  wordnet?: { readonly graph: DemoGraph; readonly lemmas: LemmaIndex };
  /** The sweep in progress, if any. */
  sweep: SweepInProgress | undefined;
}

/** A sweep the page can cancel, waiting for the page to draw its last point (`drawn`) while that is pending. */
interface SweepInProgress {
  /** Set to stop after the call in flight. */
  readonly control: SweepControl;
  /** Lets the sweep go on once the page has drawn the last point; undefined while measuring. */
  drawn: (() => void) | undefined;
}

let state: State | undefined;

function post(message: WorkerEvent | ReplyMessage | ReplyOf<keyof Replies>): void {
  self.postMessage(message);
}

/** Each backend's live state for the badges. */
function backendViews(engine: Engine): BackendView[] {
  return engine.backends().map((b) => ({
    name: b.name,
    kind: b.kind,
    available: b.available,
    device: b.device,
    software: b.software,
    state: b.available ? b.health.state : 'unavailable',
    why: b.unavailableReason ?? ('reason' in b.health ? b.health.reason : undefined),
  }));
}

/** Op events go to the page in batches (a workload makes hundreds a second). */
function forwardTelemetry(engine: Engine): void {
  let batch: ShownOp[] = [];
  const flush = (): void => {
    const ops = batch;
    batch = [];
    if (ops.length > 0) post({ event: 'ops', ops });
  };
  for (const e of engine.telemetry.opEvents()) batch.push({ ...e, why: reasonText(e.reason) });
  flush();
  engine.telemetry.subscribe((e) => {
    if (batch.length === 0) setTimeout(flush, 50);
    batch.push({ ...e, why: reasonText(e.reason) });
  });
  // Notices from the engine's start (a backend unavailable) first, then each as it happens.
  for (const notice of engine.telemetry.noticeEvents())
    post({ event: 'notice', notice, backends: backendViews(engine) });
  engine.telemetry.subscribeNotices((notice) => post({ event: 'notice', notice, backends: backendViews(engine) }));
}

/**
 * Loads ICU's data here, before the page's first use of Intl: the first Intl object of a renderer process costs
 * 40-50 ms of CPU (85-400 ms of wall time on a loaded machine) and its caches are shared by the process's threads. The
 * page's first use was evaluating uPlot (a NumberFormat and a DateTimeFormat at its top level): one 48 ms task at
 * load (issue 33); with ICU warmed here it costs the page about 1 ms.
 */
function warmIcu(): void {
  new Intl.NumberFormat(navigator.language).format(1234.5);
  new Intl.NumberFormat('en').format(1234.5);
  void new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The started state, or a sentence saying what must come first. */
function started(): State {
  if (state === undefined) throw new Error('the engine has not started yet');
  return state;
}

function wordsOf(s: State): NonNullable<State['words']> {
  if (s.words === undefined) throw new Error('the word vectors are still loading');
  return s.words;
}

function wordnetOf(s: State): NonNullable<State['wordnet']> {
  if (s.wordnet === undefined) throw new Error('WordNet is still loading');
  return s.wordnet;
}

/** Counts bytes and tells the page how far loading is. */
function progress(s: State, file: string): { base: string; onBytes: (n: number) => void } {
  const total = Object.values(s.manifest.sizes).reduce((a, b) => a + b, 0);
  let last = 0;
  return {
    base: s.baseUrl,
    onBytes: (n) => {
      s.loaded += n;
      const now = performance.now();
      if (now - last > 100 || s.loaded >= total) {
        last = now;
        post({ event: 'progress', loaded: s.loaded, total, file });
      }
    },
  };
}

const handlers: { [K in keyof Requests]: (args: Requests[K]) => Promise<Replies[K]> } = {
  start: async ({ baseUrl, webgpu }) => {
    warmIcu();
    // The page has no WebGPU (or a test hid it): its worker uses none either.
    if (!webgpu) Reflect.deleteProperty(Reflect.getPrototypeOf(navigator) ?? {}, 'gpu');
    const manifest = await loadManifest({ base: baseUrl });
    const demo = await createDemoEngine();
    state = { demo, baseUrl, manifest, loaded: 0, sweep: undefined };
    forwardTelemetry(demo.engine);
    const status = demo.webgpuStatus;
    return {
      backends: backendViews(demo.engine),
      webgpu: status.available ? { available: true, why: status.adapter } : { available: false, why: status.reason },
      isolated: crossOriginIsolated,
      words: manifest.words.count,
      synsets: manifest.wordnet.nodes,
      edges: manifest.wordnet.edges,
    };
  },
  loadWords: async () => {
    const s = started();
    const data = await loadWords(s.manifest, progress(s, 'word vectors'));
    const ops = await VectorOps.create(s.demo.engine, data.vectors, data.dim);
    const workload = new Workload(s.demo.engine, data.vectors, data.dim);
    s.words = { data, ops, workload };
    return { words: data.words.length };
  },
  loadWordNet: async () => {
    const s = started();
    const graph = await loadGraph(s.manifest, progress(s, 'WordNet'));
    s.wordnet = { graph, lemmas: new LemmaIndex(graph.lemmas) };
    return { synsets: graph.synsetIds.length, edges: graph.colIdx.length };
  },
  search: async ({ query, k, ef, strategy }) => {
    const s = started();
    const { data, ops } = wordsOf(s);
    return compareNearest(s.demo.engine, ops, data, parseQuery(query), k, strategy, ef);
  },
  synsets: async ({ word }) => {
    const { graph, lemmas } = wordnetOf(started());
    return lemmas
      .find(word)
      .map((node) => ({ node, text: `${graph.synsetIds[node] ?? '?'} ${(graph.lemmas[node] ?? []).join(', ')}` }));
  },
  spread: async (args) => {
    const s = started();
    return spreadFrom(s.demo.engine, wordnetOf(s).graph, args);
  },
  workload: async ({ run }) => {
    const { workload } = wordsOf(started());
    if (run) workload.start((stats) => post({ event: 'workload', stats, running: workload.active }));
    else await workload.stop();
    return { running: workload.active };
  },
  loseGpu: async () => {
    const s = started();
    return loseGpuDuringWorkload(s.demo, wordsOf(s).workload, (event) => post(event));
  },
  sweep: async ({ op }) => {
    const s = started();
    const engine = s.demo.engine;
    const usable = engine
      .backends()
      .filter((b) => b.available && b.health.state === 'healthy')
      .map((b) => b.name);
    const sweep: SweepInProgress = { control: { cancelled: false }, drawn: undefined };
    const control = sweep.control;
    s.sweep = sweep;
    try {
      const points = await runSweep(
        engine,
        op,
        usable,
        (point, done, total) =>
          new Promise<void>((resolve) => {
            sweep.drawn = resolve;
            post({ event: 'sweep-point', point, done, total });
          }),
        control,
        (error) => showError(error).sentence,
      );
      return { points, cancelled: control.cancelled };
    } finally {
      s.sweep = undefined;
    }
  },
  sweepDrawn: async () => {
    const sweep = state?.sweep;
    const waiting = sweep?.drawn;
    if (sweep !== undefined) sweep.drawn = undefined;
    waiting?.();
    return { waiting: waiting !== undefined };
  },
  cancelSweep: async () => {
    const sweep = state?.sweep;
    if (sweep !== undefined) sweep.control.cancelled = true;
    sweep?.drawn?.();
    return { cancelling: sweep !== undefined };
  },
  trace: async () => started().demo.engine.telemetry.toChromeTrace(),
};

/** Runs one request's handler and posts its answer (or its error, as a sentence). */
async function answer<K extends keyof Requests>(message: {
  readonly id: number;
  readonly kind: K;
  readonly args: Requests[K];
}): Promise<void> {
  try {
    const value = await handlers[message.kind](message.args);
    const reply: ReplyOf<K> = { id: message.id, kind: message.kind, ok: true, value };
    post(reply);
  } catch (error) {
    post({ id: message.id, kind: message.kind, ok: false, error: showError(error) });
  }
}

self.addEventListener('message', (event: MessageEvent<RequestMessage>) => {
  void answer(event.data);
});
