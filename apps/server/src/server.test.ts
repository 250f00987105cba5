// The API over real HTTP on a free port, with the 2,000 most frequent wink words and all of WordNet.
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
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`expected a JSON object, got ${JSON.stringify(json)}`);
  return Object.fromEntries(Object.entries(json));
}

async function post(route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, json: await jsonObject(response) };
}

function words(json: Record<string, unknown>): string[] {
  const results = json['results'];
  return Array.isArray(results) ? results.map((r: { word: string }) => r.word) : [];
}

beforeAll(async () => {
  engine = await Engine.create({ backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })] });
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
    expect(batchWater.filter((w) => w !== 'water')).toEqual(words(single.json).slice(0, batchWater.filter((w) => w !== 'water').length));
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
    ['a bad query inside a batch', '/api/batch', { queries: [{ word: 'king' }, { word: 'zzzzqqq' }] }, 404, 'queries[1].word'],
    ['too many hops', '/api/spread', { word: 'dog', maxHops: 50 }, 400, '/maxHops'],
    ['a malformed synset id', '/api/spread', { synset: 'dog' }, 400, '/synset'],
    ['an unknown synset', '/api/spread', { synset: 'n:00000000' }, 404, 'synset'],
  ])('%s', async (_name, route, body, status, field) => {
    const response = await post(route, body);
    expect(response.status).toBe(status);
    expect(typeof response.json['error']).toBe('string');
    if (field !== '') expect(response.json['field']).toBe(field);
  });

  it('malformed JSON and deep nesting are 400, a huge body 413, and the server keeps serving', async () => {
    expect((await post('/api/nearest', '{"word": "king",')).status).toBe(400);
    expect((await post('/api/nearest', `{"vector": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).status).toBe(400);
    const huge = await fetch(`${server.url}/api/nearest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vector: new Array(100_000).fill(1.5) }) });
    expect(huge.status).toBe(413);
    expect((await post('/api/nearest', { word: 'king', k: 1 })).status).toBe(200);
  });
});

describe('slow bodies', () => {
  it('a body dribbled byte by byte is cut off with 408 soon after the request timeout, and serving goes on', async () => {
    const url = new URL(server.url);
    const started = performance.now();
    const firstLine = await new Promise<string>((resolve) => {
      let response = '';
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`POST /api/nearest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`);
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
    const json = await jsonObject(response);
    expect(json['status']).toBe('ok');
    const backends = json['backends'];
    expect(Array.isArray(backends) ? backends.map((b: { name: string }) => b.name) : []).toEqual(['wasm', 'reference']);
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });

  it('/metrics is Prometheus text with HTTP and engine metrics', async () => {
    await post('/api/nearest', { word: 'king', k: 1 });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^tandem_ops_total\{op="cosineSimilarity",backend="wasm",outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^tandem_http_request_duration_seconds_count\{route="\/api\/nearest",method="POST",status="200"\} [1-9]/m);
    expect(text).toMatch(/^tandem_backend_up\{backend="wasm"\} 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });

  it('/trace is a Chrome trace of the ops run', async () => {
    const events = (await jsonObject(await fetch(`${server.url}/trace`)))['traceEvents'];
    expect(Array.isArray(events) && events.some((e: { name: string }) => e.name.includes('cosineSimilarity'))).toBe(true);
  });
});

describe('shutdown', () => {
  it('close() lets a request in flight finish, then refuses connections', async () => {
    const local = await startServer({ port: 0, words: 2000, engine });
    let closing: Promise<void> | undefined;
    const stop = engine.telemetry.subscribe(() => {
      closing ??= local.close(); // the request is being served: close now
    });
    const response = await fetch(`${local.url}/api/spread`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ word: 'dog', maxHops: 3 }) });
    stop();
    expect(response.status).toBe(200);
    expect(closing).toBeDefined();
    await closing;
    await expect(fetch(`${local.url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
