// The API over real HTTP on a free port, with the 2,000 most frequent wink words and all of WordNet.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { Engine } from '@tandem/core';
import { startServer, type RunningServer } from './start.ts';

let server: RunningServer;
let engine: Engine;

/** A JSON object from a response (anything else fails the test). */
async function jsonObject(response: Response): Promise<Record<string, unknown>> {
  const json: unknown = await response.json();
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`expected a JSON object, got ${JSON.stringify(json)}`);
  return Object.fromEntries(Object.entries(json));
}

async function post(
  route: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; type: string }> {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    json: await jsonObject(response),
  };
}

/** Checks an answer is an RFC 9457 problem for `status` at `instance`. */
function expectProblem(
  answer: { status: number; json: Record<string, unknown>; type: string },
  status: number,
  instance: string,
): void {
  expect(answer.status).toBe(status);
  expect(answer.type).toMatch(/^application\/problem\+json/);
  expect(answer.json).toMatchObject({
    type: 'about:blank',
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance,
  });
  expect(String(answer.json['detail']).length).toBeGreaterThan(0);
}

/** A request with any method and Host header (fetch forbids setting Host). */
function raw(
  method: string,
  path: string,
  host?: string,
): Promise<{ status: number; json: Record<string, unknown>; type: string; allow: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { host: host ?? url.host } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          const parsed: unknown = text === '' ? {} : JSON.parse(text);
          const json = typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed)) : {};
          resolve({
            status: res.statusCode ?? 0,
            json,
            type: String(res.headers['content-type'] ?? ''),
            allow: String(res.headers['allow'] ?? ''),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function words(json: Record<string, unknown>): string[] {
  const results = json['results'];
  return Array.isArray(results) ? results.map((r: { word: string }) => r.word) : [];
}

beforeAll(async () => {
  engine = await Engine.create({
    backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })],
  });
  server = await startServer({ port: 0, words: 2000, engine, requestTimeoutMs: 1500 });
}, 120_000);

afterAll(async () => {
  await server.close();
  await engine.dispose();
});

describe('search', () => {
  it('nearest words to a word, brute force and HNSW, the word itself excluded', async () => {
    const brute = await post('/api/nearest', { word: 'king', k: 5 });
    expect(brute.status).toBe(200);
    expect(words(brute.json)).toContain('queen');
    expect(words(brute.json)).not.toContain('king');
    expect(brute.json['backends']).toContainEqual({ backend: 'cosineSimilarity@wasm', reason: expect.any(String) });
    const hnsw = await post('/api/nearest', { word: 'king', k: 5, method: 'hnsw' });
    expect(hnsw.status).toBe(200);
    expect(words(hnsw.json).filter((w) => words(brute.json).includes(w)).length).toBeGreaterThanOrEqual(4);
  });

  it('an analogy: king - man + woman is queen', async () => {
    const { status, json } = await post('/api/analogy', { a: 'king', b: 'man', c: 'woman', k: 3 });
    expect(status).toBe(200);
    expect(words(json)[0]).toBe('queen');
  });

  it('a batch answers each query as a single search would', async () => {
    const queries = ['king', 'water', 'music', 'city'].map((word) => ({ word }));
    const { status, json } = await post('/api/batch', { queries, k: 4 });
    expect(status).toBe(200);
    expect(json['batchSize']).toBe(4);
    const results = json['results'];
    expect(Array.isArray(results) ? results.length : 0).toBe(4);
    const single = await post('/api/nearest', { word: 'water', k: 4 });
    const batchWater = Array.isArray(results) ? (results[1] as { word: string }[]).map((r) => r.word) : [];
    expect(batchWater.filter((w) => w !== 'water')).toEqual(
      words(single.json).slice(0, batchWater.filter((w) => w !== 'water').length),
    );
  });

  it('spreading activation from a word reaches its synset first, then its relations', async () => {
    const { status, json } = await post('/api/spread', { word: 'dog', maxHops: 2, k: 10 });
    expect(status).toBe(200);
    const activated = json['activated'];
    expect(Array.isArray(activated) && activated.length).toBeGreaterThan(1);
    const lemmas = Array.isArray(activated) ? activated.flatMap((a: { lemmas: string[] }) => a.lemmas) : [];
    expect(lemmas).toContain('dog');
  });
});

describe('case folding', () => {
  it('an upper-case word is found and excluded like its lower-case form', async () => {
    const analogy = await post('/api/analogy', { a: 'King', b: 'Man', c: 'Woman', k: 5 });
    expect(analogy.status).toBe(200);
    expect(words(analogy.json)).not.toContain('king');
    expect(words(analogy.json)).not.toContain('man');
    expect(words(analogy.json)).not.toContain('woman');
    expect(words(analogy.json)).toEqual(
      words((await post('/api/analogy', { a: 'king', b: 'man', c: 'woman', k: 5 })).json),
    );
    const nearest = await post('/api/nearest', { word: 'KING', k: 5 });
    expect(words(nearest.json)).not.toContain('king');
    expect(words(nearest.json)).toEqual(words((await post('/api/nearest', { word: 'king', k: 5 })).json));
  });
});

describe('bad input gets a 4xx naming the field', () => {
  it.each([
    ['k out of range', '/api/nearest', { word: 'king', k: 500 }, 400, '/k'],
    ['k of the wrong type', '/api/nearest', { word: 'king', k: 'ten' }, 400, '/k'],
    ['an unknown field', '/api/nearest', { word: 'king', colour: 'red' }, 400, ''],
    ['neither word nor vector', '/api/nearest', { k: 3 }, 400, ''],
    ['a vector of the wrong length', '/api/nearest', { vector: [1, 2, 3] }, 400, 'vector'],
    ['a zero vector', '/api/nearest', { vector: new Array(100).fill(0) }, 400, 'vector'],
    ['an unknown word', '/api/nearest', { word: 'zzzzqqq' }, 404, 'word'],
    ['an analogy word missing', '/api/analogy', { a: 'king', b: 'man' }, 400, ''],
    ['too many batch queries', '/api/batch', { queries: new Array(300).fill({ word: 'king' }) }, 400, '/queries'],
    [
      'a bad query inside a batch',
      '/api/batch',
      { queries: [{ word: 'king' }, { word: 'zzzzqqq' }] },
      404,
      'queries[1].word',
    ],
    ['too many hops', '/api/spread', { word: 'dog', maxHops: 50 }, 400, '/maxHops'],
    ['a malformed synset id', '/api/spread', { synset: 'dog' }, 400, '/synset'],
    ['an unknown synset', '/api/spread', { synset: 'n:00000000' }, 404, 'synset'],
    ['types are not coerced: a boolean word', '/api/nearest', { word: true, k: 3 }, 400, '/word'],
    ['types are not coerced: a numeric string k', '/api/nearest', { word: 'king', k: '3' }, 400, '/k'],
    ['types are not coerced: a string hop count', '/api/spread', { word: 'dog', maxHops: '2' }, 400, '/maxHops'],
  ])('%s', async (_name, route, body, status, field) => {
    const response = await post(route, body);
    expectProblem(response, status, route);
    if (field !== '') expect(response.json['field']).toBe(field);
  });

  it('{"word": true, "k": "3"} is refused, not read as the word "true"', async () => {
    expectProblem(await post('/api/nearest', '{"word": true, "k": "3"}'), 400, '/api/nearest');
  });

  it('a schema error names the field, the rule and the value', async () => {
    const answer = await post('/api/nearest', { word: 'king', k: 500 });
    expect(answer.json['detail']).toBe('body/k must be <= 100 (got 500)');
  });

  it('malformed JSON and deep nesting are 400, a huge body 413, and the server keeps serving', async () => {
    expectProblem(await post('/api/nearest', '{"word": "king",'), 400, '/api/nearest');
    expectProblem(
      await post('/api/nearest', `{"vector": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
      400,
      '/api/nearest',
    );
    const huge = await fetch(`${server.url}/api/nearest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vector: new Array(100_000).fill(1.5) }),
    });
    expectProblem(
      { status: huge.status, type: huge.headers.get('content-type') ?? '', json: await jsonObject(huge) },
      413,
      '/api/nearest',
    );
    expect((await post('/api/nearest', { word: 'king', k: 1 })).status).toBe(200);
  });
});

describe('routing', () => {
  it('a wrong method on an existing route is 405 with Allow, as problem+json', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/nearest', 'POST'],
      ['DELETE', '/api/spread', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['PUT', '/metrics', 'GET, HEAD'],
      ['OPTIONS', '/trace', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await raw(method, path);
      expectProblem(answer, 405, path);
      expect(answer.allow, `${method} ${path}`).toBe(allow);
    }
  });

  it('an unknown path is 404, a path segment too long for a name is 404, a URL over the limit 414: never 403', async () => {
    expectProblem(await raw('GET', '/no/such/route'), 404, '/no/such/route');
    const longSegment = `/${'a'.repeat(300)}`;
    const segment = await raw('GET', longSegment);
    expectProblem(segment, 404, `${longSegment.slice(0, 200)}...`);
    const longUrl = `/x/${'b/'.repeat(2000)}`;
    expect((await raw('GET', longUrl)).status).toBe(414);
    expect((await raw('GET', '/%zz')).status).toBe(400);
  });

  it('a query string is not part of the instance', async () => {
    expectProblem(await raw('GET', '/nothing?secret=1'), 404, '/nothing');
  });
});

describe('Host allow-list (bound to loopback)', () => {
  it('answers localhost, 127.0.0.1 and [::1] on its port, and refuses any other Host with 421', async () => {
    const port = new URL(server.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`])
      expect((await raw('GET', '/healthz', host)).status, host).toBe(200);
    for (const host of [`evil.example:${port}`, 'localhost:1', 'localhost', `localhost.evil.example:${port}`]) {
      const answer = await raw('GET', '/healthz', host);
      expectProblem(answer, 421, '/healthz');
      expect(String(answer.json['detail']), host).toContain('--allowed-hosts');
    }
  });
});

describe('slow bodies', () => {
  it('a body dribbled byte by byte is cut off with 408 soon after the request timeout, and serving goes on', async () => {
    const url = new URL(server.url);
    const started = performance.now();
    const firstLine = await new Promise<string>((resolve) => {
      let response = '';
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /api/nearest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`,
        );
      });
      const timer = setInterval(() => socket.write(' '), 200);
      socket.on('data', (d) => (response += d.toString()));
      socket.on('close', () => {
        clearInterval(timer);
        resolve(response.split('\r\n')[0] ?? '');
      });
      socket.on('error', () => undefined);
    });
    expect(firstLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(performance.now() - started).toBeLessThan(6000);
    expect((await post('/api/nearest', { word: 'king', k: 1 })).status).toBe(200);
  }, 20_000);
});

describe('operations', () => {
  it('/healthz lists every backend and says ok while one can serve', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const json: unknown = JSON.parse(text);
    expect(json).toMatchObject({
      status: 'ok',
      backends: [
        { name: 'wasm', state: 'healthy' },
        { name: 'reference', state: 'healthy' },
      ],
    });
    // Device and driver strings and the Node version are /debug's alone.
    for (const backend of engine.backends())
      if (backend.device !== undefined) expect(text).not.toContain(backend.device);
    expect(text).not.toContain(process.version);
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });

  it('/metrics is Prometheus text with HTTP and engine metrics', async () => {
    await post('/api/nearest', { word: 'king', k: 1 });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^tandem_ops_total\{op="cosineSimilarity",backend="wasm",outcome="ok"\} [1-9]/m);
    expect(text).toMatch(
      /^tandem_http_request_duration_seconds_count\{route="\/api\/nearest",method="POST",status="200"\} [1-9]/m,
    );
    expect(text).toMatch(/^tandem_backend_up\{backend="wasm"\} 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^tandem_http_responses_total\{route="\/api\/nearest",method="POST",status="200"\} [1-9]/m);
    expect(text).toMatch(/^tandem_limiter_active\{limiter="heavy"\} 0$/m);
    expect(text).not.toContain('nodejs_version_info');
    expect(text).not.toContain(process.version);
  });

  it('/metrics counts every status: 404, 405, 400 from validation and parsing, 421', async () => {
    const count = async (route: string, method: string, status: number): Promise<number> => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) =>
          l.startsWith(`tandem_http_responses_total{route="${route}",method="${method}",status="${status}"}`),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = [
      await count('unmatched', 'GET', 404),
      await count('/api/nearest', 'POST', 400),
      await count('unmatched', 'GET', 405),
      await count('/healthz', 'GET', 421),
    ];
    await raw('GET', '/nope');
    await post('/api/nearest', '{"word": ');
    await post('/api/nearest', { word: 'king', k: 'three' });
    await raw('GET', '/api/nearest');
    await raw('GET', '/healthz', 'evil.example');
    const after = [
      await count('unmatched', 'GET', 404),
      await count('/api/nearest', 'POST', 400),
      await count('unmatched', 'GET', 405),
      await count('/healthz', 'GET', 421),
    ];
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([1, 2, 1, 1]);
  });

  it('/trace is a Chrome trace of the ops run, streamed, without failure messages or notice details', async () => {
    const response = await fetch(`${server.url}/trace`);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const text = await response.text();
    const events: unknown = JSON.parse(text)['traceEvents'];
    expect(
      Array.isArray(events) &&
        events.some((e: { name: string }) => e.name.includes('matmul') || e.name.includes('cosineSimilarity')),
    ).toBe(true);
    expect(Array.isArray(events) ? events.length : 0).toBeGreaterThan(engine.telemetry.opEvents().length / 2);
    for (const notice of engine.telemetry.noticeEvents())
      if (notice.detail !== '') expect(text).not.toContain(notice.detail);
    for (const backend of engine.backends())
      if (backend.device !== undefined) expect(text).not.toContain(backend.device);
  });

  it('/debug is off unless enabled', async () => {
    expectProblem(await raw('GET', '/debug'), 404, '/debug');
  });
});

describe('shutdown', () => {
  it('close() lets a request in flight finish, then refuses connections', async () => {
    const local = await startServer({ port: 0, words: 2000, engine });
    let closing: Promise<void> | undefined;
    const stop = engine.telemetry.subscribe(() => {
      closing ??= local.close(); // the request is being served: close now
    });
    const response = await fetch(`${local.url}/api/spread`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ word: 'dog', maxHops: 3 }),
    });
    stop();
    expect(response.status).toBe(200);
    expect(closing).toBeDefined();
    await closing;
    await expect(fetch(`${local.url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
