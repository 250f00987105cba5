// Clients for tests and the load script: raw sockets (hostile, slow or non-reading), a /healthz prober (in a worker
// thread) that records latencies, and a reader of Prometheus samples from /metrics.
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';

/** What rawExchange saw. */
export interface RawResult {
  /** The first line of the response ('' if the server closed without answering). */
  readonly firstLine: string;
  /** Everything received (empty when not reading). */
  readonly text: string;
  /** How long the socket stayed open, ms. */
  readonly openMs: number;
}

/** How rawExchange writes. */
export interface RawOptions {
  /** Write one chunk every this many ms (default: all at once). */
  readonly everyMs?: number;
  /** After the chunks, write this every everyMs forever. */
  readonly dribble?: string;
  /** Half-close after writing everything at once. */
  readonly endAfter?: boolean;
  /** Never read the response (the socket stays paused), like a client that stopped reading. */
  readonly noRead?: boolean;
}

/** Writes `chunks` to a raw socket to `baseUrl` and resolves when the server closes it. */
export function rawExchange(baseUrl: string, chunks: readonly string[], options: RawOptions = {}): Promise<RawResult> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const started = performance.now();
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(url.port), url.hostname, () => {
      if (options.everyMs === undefined) {
        for (const chunk of chunks) socket.write(chunk);
        if (options.endAfter === true) socket.end();
        return;
      }
      let next = 0;
      const writeNext = (): void => {
        const chunk = chunks[next++] ?? options.dribble;
        if (chunk !== undefined && !socket.destroyed) socket.write(chunk);
      };
      writeNext();
      timer = setInterval(writeNext, options.everyMs);
    });
    if (options.noRead === true) socket.pause();
    else socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ firstLine: text.split('\r\n')[0] ?? '', text, openMs: performance.now() - started });
    });
    socket.on('error', () => undefined); // a reset is one way of being cut off
  });
}

/** What call() got. */
export interface CallResult {
  /** HTTP status; 0 when no answer came (then `text` is the error). */
  readonly status: number;
  /** The Retry-After header, if any. */
  readonly retryAfter: string | null;
  /** The Content-Type header ('' if none). */
  readonly type: string;
  /** The body. */
  readonly text: string;
}

/** GET `path`, or POST `body` as JSON to it; never throws (status 0 when no answer came). */
export async function call(baseUrl: string, path: string, body?: string): Promise<CallResult> {
  try {
    const response = await fetch(
      `${baseUrl}${path}`,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body },
    );
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  } catch (error) {
    return { status: 0, retryAfter: null, type: '', text: error instanceof Error ? error.message : String(error) };
  }
}

/** The body of a raw HTTP/1.1 response (after the blank line; not de-chunked). */
export function rawBody(text: string): string {
  return text.slice(text.indexOf('\r\n\r\n') + 4);
}

/** Prometheus samples from one scrape of /metrics, 0 for each absent; each `name` may carry labels as written. */
export async function metricValues(baseUrl: string, names: readonly string[]): Promise<number[]> {
  const lines = (await (await fetch(`${baseUrl}/metrics`)).text()).split('\n');
  return names.map((name) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    return line === undefined ? 0 : Number(line.slice(name.length + 1));
  });
}

/** A Prometheus sample's value from /metrics, 0 when absent; `labels` as written, e.g. 'limiter="heavy"'. */
export async function metricValue(baseUrl: string, name: string, labels = ''): Promise<number> {
  const [value] = await metricValues(baseUrl, [labels === '' ? name : `${name}{${labels}}`]);
  return value ?? 0;
}

/** A /healthz prober's record. */
export interface HealthRecord {
  /** Latency of each answered probe, ms. */
  readonly latenciesMs: number[];
  /** Status of each probe (0: no answer). */
  readonly statuses: number[];
}

/** The prober's loop, run in a worker thread (plain JavaScript, CommonJS: `eval` workers take no TypeScript). */
const PROBER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let running = true;
const latenciesMs = [];
const statuses = [];
parentPort.once('message', () => { running = false; });
(async () => {
  while (running) {
    const t0 = performance.now();
    try {
      const response = await fetch(workerData.url + '/healthz');
      await response.arrayBuffer();
      latenciesMs.push(performance.now() - t0);
      statuses.push(response.status);
    } catch {
      statuses.push(0);
    }
    await new Promise((resolve) => setTimeout(resolve, workerData.gapMs));
  }
  parentPort.postMessage({ latenciesMs, statuses });
})();
`;

/** Whether `value` is a list of numbers. */
function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

/**
 * Sends GET /healthz one after another (pausing `gapMs` between) until stop() is called. The prober runs in a
 * worker thread with its own event loop, so what this thread does (a server in the same process, or a load
 * generator parsing large answers) does not delay the probes or their timing.
 */
export function probeHealth(baseUrl: string, gapMs: number): { stop: () => Promise<HealthRecord> } {
  const worker = new Worker(PROBER_SOURCE, { eval: true, workerData: { url: baseUrl, gapMs } });
  const done = new Promise<HealthRecord>((resolve, reject) => {
    worker.once('message', (message: unknown) => {
      const field = (key: string): unknown =>
        typeof message === 'object' && message !== null ? Reflect.get(message, key) : undefined;
      resolve({ latenciesMs: numbers(field('latenciesMs')), statuses: numbers(field('statuses')) });
    });
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const record = await done;
      await worker.terminate();
      return record;
    },
  };
}
