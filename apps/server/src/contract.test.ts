// The server's contracts over real HTTP (the 2,000 most frequent wink words): /metrics is one exposition that a
// strict parser reads (prom-client's process metrics, the server's, then the engine's own, nothing mirrored), /trace
// nests on every track under concurrent requests, /openapi.json documents every route from the schemas fastify
// uses, answers carry exactly their schema's fields, and the request logger writes a line per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, TELEMETRY_METRICS } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { namingProblems, parseExposition } from '../../../packages/core/src/telemetry/exposition-parser.ts';
import { traceProblems, type CheckedEvent } from '../../../packages/core/src/telemetry/trace-check.ts';
import { analogyBody, batchBody, nearestBody, spreadBody } from './schemas.ts';
import { nearestAnswer } from './response-schemas.ts';
import { startServer, type RunningServer } from './start.ts';

let server: RunningServer;
let engine: Engine;
const logLines: string[] = [];

const post = (route: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A JSON value as a plain object ({} for anything else). */
function object(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value))
    : {};
}

beforeAll(async () => {
  engine = await Engine.create({
    backends: [new WasmBackend({ threads: 1 }), new ReferenceBackend({ fallbackOnly: true })],
  });
  server = await startServer({
    port: 0,
    words: 2000,
    engine,
    logger: { level: 'info', stream: { write: (line) => logLines.push(line) } },
  });
}, 120_000);

afterAll(async () => {
  await server.close();
  await engine.dispose();
});

describe('/metrics', () => {
  it('parses strictly: process metrics, the server metrics and the engine exposition once each, names by the conventions', async () => {
    expect((await post('/api/nearest', { word: 'king', k: 3 })).status).toBe(200);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parseExposition(await response.text()); // throws on a repeated family, a split one, a bad bucket
    for (const [name, type] of Object.entries(TELEMETRY_METRICS)) expect(families.get(name)?.type, name).toBe(type);
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('tandem_http_responses_total')?.type).toBe('counter');
    // No second schema for the engine's metrics: the server mirrors none of them.
    expect(
      [...families.keys()].filter((n) => n.startsWith('tandem_op') || n.includes('fallback') || n.includes('moved')),
    ).toEqual(['tandem_ops_total', 'tandem_op_duration_seconds', 'tandem_fallbacks_total', 'tandem_moved_bytes_total']);
    const ops = families.get('tandem_ops_total')?.samples ?? [];
    expect(
      ops.find(
        (s) => s.labels['op'] === 'cosineSimilarity' && s.labels['backend'] === 'wasm' && s.labels['outcome'] === 'ok',
      )?.value,
    ).toBeGreaterThan(0);
    expect(new Set(ops.map((s) => s.labels['outcome']))).toEqual(new Set(['ok', 'error']));
    // Our names follow the conventions (prom-client's nodejs_active_*_total gauges are its own).
    expect(namingProblems(families).filter((p) => p.startsWith('tandem_'))).toEqual([]);
  });
});

describe('/trace', () => {
  it('every track nests under concurrent requests: no overlapping slices on one thread, no sentinels', async () => {
    const words = ['water', 'music', 'city', 'house', 'river', 'light'];
    // Calls in flight together on one backend: the server's requests, and the engine's own calls issued at once.
    const a = engine.tensor(new Float32Array(64 * 64).fill(0.5), [64, 64]);
    const direct = Array.from({ length: 6 }, () => engine.matmul(a, a).then((c) => c.dispose()));
    await Promise.all([
      ...direct,
      ...words.map((word) => post('/api/nearest', { word, k: 5 })),
      post('/api/spread', { word: 'dog', maxHops: 2 }),
      post('/api/batch', { queries: words.map((word) => ({ word })) }),
    ]);
    a.dispose();
    const trace = object(await (await fetch(`${server.url}/trace`)).json());
    const events: CheckedEvent[] = Array.isArray(trace['traceEvents']) ? trace['traceEvents'] : [];
    expect(events.filter((e) => e.ph === 'X').length).toBeGreaterThan(8);
    // Calls overlapped on wasm: one track could not have held them (they would not nest).
    const threads = events.filter((e) => e.name === 'thread_name').map((e) => String(object(e.args)['name']));
    expect(threads.filter((name) => name.startsWith('wasm')).length).toBeGreaterThan(1);
    expect(traceProblems(events)).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('documents every route from the schemas fastify validates and serialises with', async () => {
    const doc = object(await (await fetch(`${server.url}/openapi.json`)).json());
    expect(doc['openapi']).toBe('3.1.0');
    const paths = object(doc['paths']);
    expect(Object.keys(paths).sort()).toEqual([
      '/api/analogy',
      '/api/batch',
      '/api/nearest',
      '/api/spread',
      '/healthz',
      '/metrics',
      '/openapi.json',
      '/trace',
    ]);
    const bodies = {
      '/api/nearest': nearestBody,
      '/api/analogy': analogyBody,
      '/api/batch': batchBody,
      '/api/spread': spreadBody,
    };
    for (const [path, body] of Object.entries(bodies)) {
      const post = object(object(paths[path])['post']);
      expect(object(object(object(post['requestBody'])['content'])['application/json'])['schema'], path).toEqual(
        JSON.parse(JSON.stringify(body)),
      );
      expect(Object.keys(object(post['responses'])), path).toEqual(['200', '4XX', '5XX']);
      expect(typeof post['summary'], path).toBe('string');
    }
    const health = object(object(object(paths['/healthz'])['get'])['responses']);
    expect(Object.keys(object(object(health['503'])['content'])).sort()).toEqual([
      'application/json',
      'application/problem+json',
    ]);
  });

  it("an answer carries exactly its schema's fields", async () => {
    const answer = object(await (await post('/api/nearest', { word: 'king', k: 2 })).json());
    expect(Object.keys(answer).sort()).toEqual([...nearestAnswer.required].sort());
  });
});

describe('logger', () => {
  it('writes a JSON line for each request it answers', async () => {
    await fetch(`${server.url}/healthz`);
    const lines = logLines.map((line): Record<string, unknown> => object(JSON.parse(line)));
    expect(lines.some((l) => object(l['req'])['url'] === '/healthz')).toBe(true);
    expect(lines.some((l) => object(l['res'])['statusCode'] === 200)).toBe(true);
  });
});
