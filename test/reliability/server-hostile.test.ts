// Hostile requests against the real server over HTTP (port 0, the 2,000 most frequent wink words, a 1 s request
// timeout): bad bodies on every route get a 4xx, protocol abuse gets a 4xx or a closed socket, slow senders are
// cut off with 408, and ordinary requests sent in the middle of all this are answered correctly.
// (apps/server/src/server.test.ts checks each route's validation; this file checks the server under attack.)
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { startServer, type RunningServer } from '../../apps/server/src/start.ts';

const REQUEST_TIMEOUT_MS = 1000;
let server: RunningServer;
let engine: Engine;

beforeAll(async () => {
  engine = await Engine.create({ backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })] });
  server = await startServer({ port: 0, words: 2000, engine, requestTimeoutMs: REQUEST_TIMEOUT_MS });
}, 60_000);

afterAll(async () => {
  await server.close();
  await engine.dispose();
});

/** Status and body text of a POST with a raw body. */
async function post(route: string, body: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': contentType }, body });
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

/**
 * Writes `chunks` to a raw socket (all at once, or one every `everyMs` and then `dribble` forever) and resolves with
 * the first line of the response ('' if the server closed without one) and how long the socket stayed open.
 */
function rawExchange(chunks: readonly string[], options: { everyMs?: number; dribble?: string; endAfter?: boolean } = {}): Promise<{ firstLine: string; openMs: number }> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const started = performance.now();
    let response = '';
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
    socket.on('data', (d) => (response += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ firstLine: response.split('\r\n')[0] ?? '', openMs: performance.now() - started });
    });
    socket.on('error', () => undefined); // a reset is one way of being cut off
  });
}

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
    ['constructor.prototype key', '/api/analogy', '{"a": "king", "b": "man", "c": "woman", "constructor": {"prototype": {"k": 1}}}', 400],
    ['deep array nesting', '/api/nearest', `{"vector": ${'['.repeat(60_000)}${']'.repeat(60_000)}}`, 400],
    ['deep object nesting', '/api/batch', `{"queries": ${'{"q":'.repeat(20_000)}1${'}'.repeat(20_000)}}`, 400],
    ['deep nesting inside a batch query', '/api/batch', `{"queries": [{"vector": ${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`, 400],
    ['an array over the schema cap', '/api/nearest', JSON.stringify({ vector: vector100(0.5).concat(new Array<number>(5000).fill(0.5)) }), 400],
    ['a body over the size limit', '/api/nearest', JSON.stringify({ vector: new Array<number>(120_000).fill(0.25) }), 413],
    ['a batch over its query cap', '/api/batch', JSON.stringify({ queries: new Array(1000).fill({ word: 'king' }) }), 400],
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
    expect(json).toMatchObject({ error: expect.any(String) });
  });

  it('JSON sent as text/plain or form data is refused with a 4xx', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const { status } = await post('/api/nearest', '{"word": "king"}', type);
      expect(status, type).toBeGreaterThanOrEqual(400);
      expect(status, type).toBeLessThan(500);
    }
  });
});

describe('protocol abuse gets a 4xx or a closed socket, never a hang', () => {
  it.each([
    ['bytes that are not HTTP', ['\u0000\u0001GARBAGE\r\n\r\n'], /^HTTP\/1\.1 400 /],
    ['a body shorter than its Content-Length, then end of stream', ['POST /api/nearest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"word":'], /^HTTP\/1\.1 400 |^$/],
    ['a negative Content-Length', ['POST /api/nearest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n{}'], /^HTTP\/1\.1 400 /],
    ['Content-Length and chunked together (request smuggling)', ['POST /api/nearest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'], /^HTTP\/1\.1 400 /],
    ['a 100 KB header', [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`], /^HTTP\/1\.1 431 /],
    ['a chunked body past the size limit', ['POST /api/nearest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', ...new Array<string>(6).fill(`10000\r\n${'a'.repeat(0x10000)}\r\n`), '0\r\n\r\n'], /^HTTP\/1\.1 413 /],
  ])('%s', async (_name, chunks, expected) => {
    const { firstLine, openMs } = await rawExchange(chunks, { endAfter: true });
    expect(firstLine).toMatch(expected);
    expect(openMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
  });
});

describe('under attack, ordinary requests are still answered', () => {
  it('20 slow bodies, 10 slow headers and a stream of hostile bodies, while 60 ordinary requests succeed', async () => {
    const url = new URL(server.url);
    const slowBodies = Array.from({ length: 20 }, () =>
      rawExchange([`POST /api/nearest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`], { everyMs: 100, dribble: ' ' }),
    );
    const slowHeaders = Array.from({ length: 10 }, () => rawExchange(['GET /healthz HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-Slow'], { everyMs: 150, dribble: 'w' }));
    const hostile = Array.from({ length: 40 }, (_, i) => post(i % 2 === 0 ? '/api/nearest' : '/api/batch', i % 4 < 2 ? '{"word": ' : JSON.stringify({ queries: 'king', k: -1 })));
    const ordinary = Array.from({ length: 60 }, () => ordinaryRequestWorks());
    expect(await Promise.all(ordinary)).toEqual(new Array<boolean>(60).fill(true));
    for (const { status } of await Promise.all(hostile)) expect(status).toBe(400);
    for (const { firstLine, openMs } of await Promise.all([...slowBodies, ...slowHeaders])) {
      expect(firstLine).toBe('HTTP/1.1 408 Request Timeout');
      expect(openMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(openMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
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
