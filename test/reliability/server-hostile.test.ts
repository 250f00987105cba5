// Hostile requests against the real server over HTTP (port 0, the 2,000 most frequent wink words, a 1 s request
// timeout, a 1.5 s socket inactivity timeout, the default limiters): bad bodies on every route get a problem+json
// 4xx, protocol abuse gets a 4xx or a closed socket, slow senders are cut off with 408, non-reading clients are
// dropped, the heaviest valid requests past the limiters get 503 + Retry-After while /healthz keeps answering, and
// ordinary requests sent in the middle of all this are answered correctly. (apps/server/src/server.test.ts checks
// each route's validation; this file checks the server under attack; test/stress/server-load.ts has the figures.)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, percentile } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { DEFAULT_LIMITS } from '../../apps/server/src/settings.ts';
import { startServer, type RunningServer } from '../../apps/server/src/start.ts';
import {
  call as callRoute,
  metricValue,
  probeHealth,
  rawBody,
  rawExchange,
  type CallResult,
  type RawOptions,
  type RawResult,
} from '../../apps/server/src/testing/http-probes.ts';

const REQUEST_TIMEOUT_MS = 1000;
const SOCKET_IDLE_MS = 1500;
let server: RunningServer;
let engine: Engine;
let host: string;

beforeAll(async () => {
  engine = await Engine.create({
    backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })],
  });
  server = await startServer({
    port: 0,
    words: 2000,
    engine,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    socketIdleMs: SOCKET_IDLE_MS,
  });
  host = new URL(server.url).host;
}, 60_000);

afterAll(async () => {
  await server.close();
  await engine.dispose();
});

/** Status and body text of a POST with a raw body. */
async function post(
  route: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** The words of a search answer (empty when the answer is not one). */
function wordsOf(text: string): string[] {
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'object' || json === null || !('results' in json) || !Array.isArray(json.results)) return [];
  return json.results.map((r: unknown) => (typeof r === 'object' && r !== null && 'word' in r ? String(r.word) : ''));
}

/** An ordinary request and a check of its answer: king's neighbours include queen. */
async function ordinaryRequestWorks(): Promise<boolean> {
  const { status, text } = await post('/api/nearest', JSON.stringify({ word: 'king', k: 5 }));
  return status === 200 && wordsOf(text).includes('queen');
}

/** rawExchange against this server. */
const raw = (chunks: readonly string[], options: RawOptions = {}): Promise<RawResult> =>
  rawExchange(server.url, chunks, options);

const vector100 = (value: number): number[] => new Array<number>(100).fill(value);

describe('hostile bodies get a 4xx, on every route', () => {
  const cases: [string, string, string, number][] = [
    ['malformed JSON', '/api/nearest', '{"word": "king",', 400],
    ['malformed JSON (analogy)', '/api/analogy', '{"a": "king" "b": "man"}', 400],
    ['malformed JSON (batch)', '/api/batch', '{"queries": [', 400],
    ['malformed JSON (spread)', '/api/spread', '{"word": dog}', 400],
    ['NaN literal', '/api/nearest', `{"vector": [NaN${',0.5'.repeat(99)}]}`, 400],
    ['a number that overflows to Infinity', '/api/nearest', `{"vector": [1e999${',0.5'.repeat(99)}]}`, 400],
    ['__proto__ key (prototype pollution)', '/api/nearest', '{"word": "king", "__proto__": {"k": 100}}', 400],
    [
      'constructor.prototype key',
      '/api/analogy',
      '{"a": "king", "b": "man", "c": "woman", "constructor": {"prototype": {"k": 1}}}',
      400,
    ],
    ['deep array nesting', '/api/nearest', `{"vector": ${'['.repeat(60_000)}${']'.repeat(60_000)}}`, 400],
    ['deep object nesting', '/api/batch', `{"queries": ${'{"q":'.repeat(20_000)}1${'}'.repeat(20_000)}}`, 400],
    [
      'deep nesting inside a batch query',
      '/api/batch',
      `{"queries": [{"vector": ${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`,
      400,
    ],
    [
      'an array over the schema cap',
      '/api/nearest',
      JSON.stringify({ vector: vector100(0.5).concat(new Array<number>(5000).fill(0.5)) }),
      400,
    ],
    [
      'a body over the size limit',
      '/api/nearest',
      JSON.stringify({ vector: new Array<number>(120_000).fill(0.25) }),
      413,
    ],
    [
      'a batch over its query cap',
      '/api/batch',
      JSON.stringify({ queries: new Array(1000).fill({ word: 'king' }) }),
      400,
    ],
    ['wrong types', '/api/nearest', JSON.stringify({ word: 42, k: 'many' }), 400],
    ['wrong types (analogy)', '/api/analogy', JSON.stringify({ a: ['king'], b: {}, c: null }), 400],
    ['wrong types (spread)', '/api/spread', JSON.stringify({ word: 'dog', maxHops: 2.5 }), 400],
    ['vector of words', '/api/nearest', JSON.stringify({ vector: vector100(1).map(() => 'one') }), 400],
    ['vector of objects', '/api/nearest', JSON.stringify({ vector: vector100(1).map((x) => ({ x })) }), 400],
    ['top-level array', '/api/batch', '[{"word": "king"}]', 400],
    ['top-level null', '/api/spread', 'null', 400],
    ['empty body', '/api/analogy', '', 400],
    ['a 100 KB word', '/api/nearest', JSON.stringify({ word: 'x'.repeat(100_000) }), 400],
    ['k far out of range', '/api/nearest', JSON.stringify({ word: 'king', k: 1e9 }), 400],
    ['negative decay', '/api/spread', JSON.stringify({ word: 'dog', decay: -1 }), 400],
    ['hops past the cap', '/api/spread', JSON.stringify({ word: 'dog', maxHops: 1e6 }), 400],
    ['an all-zero vector', '/api/nearest', JSON.stringify({ vector: vector100(0) }), 400],
    ['subnormal values only (zero in f32)', '/api/nearest', JSON.stringify({ vector: vector100(5e-324) }), 400],
  ];
  it.each(cases)('%s', async (_name, route, body, status) => {
    const response = await post(route, body);
    expect(response.status).toBe(status);
    const json: unknown = JSON.parse(response.text);
    expect(json).toMatchObject({
      type: 'about:blank',
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: route,
    });
  });

  it('JSON sent as text/plain or form data is refused with a 4xx', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const { status } = await post('/api/nearest', '{"word": "king"}', type);
      expect(status, type).toBeGreaterThanOrEqual(400);
      expect(status, type).toBeLessThan(500);
    }
  });
});

// "Never a hang": each exchange resolves only when the server closes the socket, so a hang fails the test's time limit
// (no wall-clock bound here, which a loaded machine could break).
describe('protocol abuse gets a problem+json 4xx or a closed socket, never a hang', () => {
  const post = (headers: string): string =>
    `POST /api/nearest HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n${headers}\r\n`;
  it.each([
    ['bytes that are not HTTP', ['\u0000\u0001GARBAGE\r\n\r\n'], /^HTTP\/1\.1 400 /],
    [
      'a body shorter than its Content-Length, then end of stream',
      [`${post('Content-Length: 100\r\n')}{"word":`],
      /^HTTP\/1\.1 400 |^$/,
    ],
    ['a negative Content-Length', [`${post('Content-Length: -5\r\n')}{}`], /^HTTP\/1\.1 400 /],
    [
      'Content-Length and chunked together (request smuggling)',
      [`${post('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n')}0\r\n\r\n`],
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a 100 KB header',
      [`GET /healthz HTTP/1.1\r\nHost: HOST\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`],
      /^HTTP\/1\.1 431 /,
    ],
    [
      'a chunked body past the size limit',
      [
        post('Transfer-Encoding: chunked\r\n'),
        ...new Array<string>(6).fill(`10000\r\n${'a'.repeat(0x10000)}\r\n`),
        '0\r\n\r\n',
      ],
      /^HTTP\/1\.1 413 /,
    ],
    [
      'a request for another Host (DNS rebinding)',
      ['GET /healthz HTTP/1.1\r\nHost: evil.example\r\n\r\n'],
      /^HTTP\/1\.1 421 /,
    ],
  ])('%s', async (_name, chunks, expected) => {
    const { firstLine, text } = await raw(
      chunks.map((c) => c.replace('HOST', host)),
      { endAfter: true },
    );
    expect(firstLine).toMatch(expected);
    if (firstLine !== '') expect(text).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  });
});

describe('under attack, ordinary requests are still answered', () => {
  it('20 slow bodies, 10 slow headers and a stream of hostile bodies, while 60 ordinary requests succeed', async () => {
    const url = new URL(server.url);
    const slowBodies = Array.from({ length: 20 }, () =>
      raw(
        [
          `POST /api/nearest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        ],
        { everyMs: 100, dribble: ' ' },
      ),
    );
    const slowHeaders = Array.from({ length: 10 }, () =>
      raw(['GET /healthz HTTP/1.1\r\n', `Host: ${url.host}\r\n`, 'X-A: 1\r\n', 'X-Slow'], {
        everyMs: 150,
        dribble: 'w',
      }),
    );
    const hostile = Array.from({ length: 40 }, (_, i) =>
      post(
        i % 2 === 0 ? '/api/nearest' : '/api/batch',
        i % 4 < 2 ? '{"word": ' : JSON.stringify({ queries: 'king', k: -1 }),
      ),
    );
    const ordinary = Array.from({ length: 60 }, () => ordinaryRequestWorks());
    expect(await Promise.all(ordinary)).toEqual(new Array<boolean>(60).fill(true));
    for (const { status } of await Promise.all(hostile)) expect(status).toBe(400);
    for (const { firstLine, openMs } of await Promise.all([...slowBodies, ...slowHeaders])) {
      expect(firstLine).toBe('HTTP/1.1 408 Request Timeout');
      // Not cut off before the request timeout (a slow machine only makes this later; a hang fails the test's own time limit).
      expect(openMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    }
    expect(await ordinaryRequestWorks()).toBe(true);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  }, 20_000);
});

describe('finite but extreme vectors', () => {
  // Cosine similarity does not depend on the query's length, so a vector scaled by 1e30 or 1e-30 must find the same
  // words as the vector itself, or be refused with a 4xx. (The f32 kernels once returned 0 for every score here, as
  // the query's sum of squares overflowed or underflowed; they now rescale such rows: see CosineSimilarityOp.)
  it('a query vector scaled to 1e30 or 1e-30 finds the same words as unscaled, or is refused', async () => {
    const direction = Array.from({ length: 100 }, (_, i) => Math.sin(i + 1));
    const plain = await post('/api/nearest', JSON.stringify({ vector: direction, k: 5 }));
    expect(plain.status).toBe(200);
    for (const factor of [1e30, 1e-30]) {
      const scaled = await post('/api/nearest', JSON.stringify({ vector: direction.map((x) => x * factor), k: 5 }));
      if (scaled.status >= 400 && scaled.status < 500) continue;
      expect(scaled.status).toBe(200);
      expect(wordsOf(scaled.text), `scaled by ${factor}`).toEqual(wordsOf(plain.text));
    }
  });
});

/** Words among the 2,000 loaded, for batches. */
const WORDS = [
  'king',
  'water',
  'music',
  'city',
  'man',
  'woman',
  'house',
  'money',
  'world',
  'school',
  'family',
  'war',
  'life',
  'music',
  'river',
  'green',
];

/** A raw HTTP/1.1 request text to this server. */
function requestText(path: string, body?: string): string {
  if (body === undefined) return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** call() against this server. */
const call = (path: string, body?: string): Promise<CallResult> => callRoute(server.url, path, body);

/** A search answer's rows as [word, score] pairs (a batch: one row per query). */
function batchRows(text: string): [string, number][][] {
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'object' || json === null || !('results' in json) || !Array.isArray(json.results)) return [];
  return json.results.map((row: { word: string; score: number }[]) =>
    row.map((hit): [string, number] => [hit.word, hit.score]),
  );
}

/** A spread answer without its timing and backends (which differ from run to run). */
function spreadCore(text: string): unknown {
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'object' || json === null) return json;
  return Object.fromEntries(Object.entries(json).filter(([key]) => key !== 'ms' && key !== 'backends'));
}

describe('answers written before routing are problem+json and counted in /metrics', () => {
  it('400 (not HTTP), 408 (slow body) and 431 (huge header) each add one to their status', async () => {
    const count = (status: number): Promise<number> =>
      metricValue(server.url, 'tandem_http_responses_total', `route="unmatched",method="unknown",status="${status}"`);
    const before = await Promise.all([400, 408, 431].map(count));
    const answers = await Promise.all([
      raw(['\u0000GARBAGE\r\n\r\n'], { endAfter: true }),
      raw(
        [
          `POST /api/nearest HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
        ],
        { everyMs: 100, dribble: ' ' },
      ),
      raw([`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`], { endAfter: true }),
    ]);
    const statuses = answers.map((a) => Number(a.firstLine.split(' ')[1]));
    expect(statuses).toEqual([400, 408, 431]);
    answers.forEach((a, i) => {
      expect(JSON.parse(rawBody(a.text))).toMatchObject({
        type: 'about:blank',
        status: statuses[i],
        detail: expect.any(String),
      });
    });
    const after = await Promise.all([400, 408, 431].map(count));
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1, 1]);
  });
});

describe('clients that stop reading are dropped', () => {
  it('non-reading clients of /trace and of large batch answers are closed, and the limiter slots come back', async () => {
    const batch = JSON.stringify({
      queries: Array.from({ length: 256 }, (_, i) => ({ word: WORDS[i % WORDS.length] })),
      k: 100,
    });
    const open = (): Promise<number> => metricValue(server.url, 'tandem_http_connections_open');
    const closedBefore = await metricValue(server.url, 'tandem_http_idle_sockets_closed_total');
    // Earlier tests' keep-alive connections close within the keep-alive timeout: wait for them, so that the count
    // left is this test's own connection to /metrics.
    await expect.poll(open, { interval: 250, timeout: 10_000 }).toBeLessThanOrEqual(1);
    const baseline = await open();
    // Five pipelined batch answers (5.7 MB) overflow the socket buffers (4 MiB at most for sending on Linux), so the
    // server's writes stall mid-answer and only the inactivity timeout can end them; a trace may be written whole, and
    // its idle connection is then closed by the keep-alive timeout.
    const pipelined = 2;
    const traces = 12;
    const stalled = pipelined + traces;
    const clients = [
      ...Array.from({ length: pipelined }, () => raw([requestText('/api/batch', batch).repeat(5)], { noRead: true })),
      ...Array.from({ length: traces }, () => raw([requestText('/trace')], { noRead: true })),
    ];
    await expect.poll(open, { interval: 50, timeout: 5000 }).toBeGreaterThanOrEqual(stalled);
    const started = performance.now();
    // A paused client cannot see its socket close: the server's own count of open connections must fall.
    await expect.poll(open, { interval: 250, timeout: 15_000 }).toBeLessThanOrEqual(baseline);
    console.log(
      `  ${stalled} non-reading clients dropped ${((performance.now() - started) / 1000).toFixed(1)} s after all were open (inactivity timeout ${SOCKET_IDLE_MS / 1000} s)`,
    );
    expect(
      (await metricValue(server.url, 'tandem_http_idle_sockets_closed_total')) - closedBefore,
    ).toBeGreaterThanOrEqual(pipelined);
    void clients; // their sockets stay paused: they never settle, and are let go with the test
    const trace = await call('/trace');
    expect(trace.status).toBe(200);
    expect(JSON.parse(trace.text)).toMatchObject({ traceEvents: expect.any(Array) });
    expect((await call('/api/batch', batch)).status).toBe(200);
  }, 30_000);
});

describe('the heaviest valid requests at twice what the heavy limiter admits', () => {
  it('the excess gets 503 + Retry-After, every admitted request is answered correctly, nothing else fails, /healthz answers throughout', async () => {
    const { concurrency, queue } = DEFAULT_LIMITS.heavy;
    const capacity = concurrency + queue;
    const batch = JSON.stringify({
      queries: Array.from({ length: 256 }, (_, i) => ({ word: WORDS[i % WORDS.length] })),
      k: 100,
    });
    const spread = JSON.stringify({ word: 'run', maxHops: 10, decay: 1, threshold: 0, k: 100 });
    const reference = { batch: await call('/api/batch', batch), spread: await call('/api/spread', spread) };
    expect([reference.batch.status, reference.spread.status]).toEqual([200, 200]);
    const shedBefore = await metricValue(server.url, 'tandem_limiter_shed_total', 'limiter="heavy"');
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const prober = probeHealth(server.url, 5);
    const answers = await Promise.all(
      Array.from({ length: 2 * capacity }, (_, i) =>
        i % 2 === 0 ? call('/api/batch', batch) : call('/api/spread', spread),
      ),
    );
    const health = await prober.stop();
    lag.disable();
    const ok = answers.filter((a) => a.status === 200);
    const shed = answers.filter((a) => a.status === 503);
    console.log(
      `  ${answers.length} heavy requests (limit ${concurrency} + ${queue} waiting): ${ok.length} answered, ${shed.length} shed; ` +
        `/healthz (probed from a worker thread) p50 ${percentile(health.latenciesMs, 0.5).toFixed(1)} ms, p99 ${percentile(health.latenciesMs, 0.99).toFixed(1)} ms over ${health.latenciesMs.length}; ` +
        `event-loop lag p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`,
    );
    expect(ok.length + shed.length, 'statuses other than 200 and 503').toBe(answers.length);
    expect(ok.length).toBeGreaterThanOrEqual(capacity);
    expect(shed.length).toBeGreaterThanOrEqual(1);
    expect((await metricValue(server.url, 'tandem_limiter_shed_total', 'limiter="heavy"')) - shedBefore).toBe(
      shed.length,
    );
    for (const answer of shed) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.text)).toMatchObject({ status: 503, detail: expect.stringContaining('heavy limit') });
    }
    const expectedRows = batchRows(reference.batch.text);
    for (const answer of answers) {
      if (answer.status !== 200) continue;
      if (answer.text.includes('"batchSize"')) {
        const rows = batchRows(answer.text);
        expect(rows.length).toBe(256);
        rows.forEach((row, i) => {
          expect(row[0]?.[0], `query ${i}`).toBe(WORDS[i % WORDS.length]); // a word's nearest vector is its own
          expect(row.map(([, score]) => score)).toEqual(expectedRows[i]?.map(([, score]) => expect.closeTo(score, 5)));
        });
      } else {
        expect(spreadCore(answer.text)).toEqual(spreadCore(reference.spread.text));
      }
    }
    expect(health.statuses.length).toBeGreaterThan(0);
    expect(new Set(health.statuses)).toEqual(new Set([200]));
  }, 60_000);
});

describe('/trace and /metrics under concurrency', () => {
  it('40 of each at once: each /trace is a whole, valid trace or a 503 with Retry-After; every /metrics answers', async () => {
    const { concurrency, queue } = DEFAULT_LIMITS.trace;
    const shedBefore = await metricValue(server.url, 'tandem_limiter_shed_total', 'limiter="trace"');
    const [traces, metrics] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, () => call('/trace'))),
      Promise.all(Array.from({ length: 40 }, () => call('/metrics'))),
    ]);
    const whole = traces.filter((t) => t.status === 200);
    const shed = traces.filter((t) => t.status === 503);
    expect(whole.length + shed.length).toBe(traces.length);
    expect(whole.length).toBeGreaterThanOrEqual(concurrency + queue);
    for (const t of whole)
      expect(JSON.parse(t.text)).toMatchObject({ displayTimeUnit: 'ms', traceEvents: expect.any(Array) });
    for (const t of shed) expect(Number(t.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await metricValue(server.url, 'tandem_limiter_shed_total', 'limiter="trace"')) - shedBefore).toBe(
      shed.length,
    );
    for (const m of metrics) {
      expect(m.status).toBe(200);
      expect(m.text).toMatch(/^tandem_http_responses_total\{/m);
    }
    expect(await ordinaryRequestWorks()).toBe(true);
  }, 30_000);
});
