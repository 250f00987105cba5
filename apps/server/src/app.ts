// The HTTP API (fastify): search, analogy, batch, spreading activation, health, metrics, trace.
// Every body is validated by a JSON schema (schemas.ts); limits on sizes, counts and time keep hostile
// requests cheap; errors are { error, field } with a 4xx status.
import fastifyStatic from '@fastify/static';
import { DisposedError, InvalidArgumentError, monotonicClock, type OpEvent } from '@tandem/core';
import type { SearchHit } from '@tandem/memory';
import { spreadActivation } from '@tandem/memory';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { createServer } from 'node:http';
import type { ServerContext } from './context.ts';
import { RequestError } from './errors.ts';
import type { ServerMetrics } from './metrics.ts';
import { queryVector, unit, wordVector } from './queries.ts';
import { analogyBody, batchBody, nearestBody, spreadBody } from './schemas.ts';

/** Request body limit, bytes. */
export const BODY_LIMIT = 256 * 1024;
/** A request must arrive completely within this, ms (slow bodies are cut off). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** App settings. */
export interface AppOptions {
  /** A built demo to serve at / (apps/demo/dist), when present. */
  readonly demoDir?: string;
  /** A request must arrive completely within this, ms (default REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
}

interface NearestBody {
  word?: string;
  vector?: number[];
  k: number;
  method: 'brute' | 'hnsw';
}
interface AnalogyBody {
  a: string;
  b: string;
  c: string;
  k: number;
}
interface BatchBody {
  queries: { word?: string; vector?: number[] }[];
  k: number;
}
interface SpreadBody {
  word?: string;
  synset?: string;
  decay: number;
  threshold: number;
  maxHops: number;
  k: number;
}

/** Ops whose backends a search reports. */
const SEARCH_OPS: ReadonlySet<string> = new Set(['cosineSimilarity', 'matmul', 'topK', 'spreadActivation']);

/** Runs `work` and reports the backends that ran search ops meanwhile (shared with concurrent requests). */
async function observed<T>(ctx: ServerContext, work: () => Promise<T>): Promise<{ value: T; ms: number; backends: { backend: string; reason: string }[] }> {
  const seen: OpEvent[] = [];
  const stop = ctx.engine.telemetry.subscribe((e) => {
    if (e.ok && SEARCH_OPS.has(e.op)) seen.push(e);
  });
  const t0 = monotonicClock();
  try {
    const value = await work();
    const backends = new Map<string, string>();
    for (const e of seen) backends.set(`${e.op}@${e.backend}`, e.reason.kind);
    return { value, ms: monotonicClock() - t0, backends: [...backends].map(([backend, reason]) => ({ backend, reason })) };
  } finally {
    stop();
  }
}

function named(ctx: ServerContext, hits: readonly SearchHit[], exclude: ReadonlySet<number> = new Set()): { word: string; score: number }[] {
  return hits.filter((h) => !exclude.has(h.index)).map((h) => ({ word: ctx.words[h.index] ?? '?', score: h.score }));
}

/** Builds the fastify app over a loaded context. */
export async function buildApp(ctx: ServerContext, metrics: ServerMetrics, options: AppOptions = {}): Promise<FastifyInstance> {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    logger: false,
    ajv: { customOptions: { allErrors: false, removeAdditional: false } },
    // Node checks request deadlines every connectionsCheckingInterval (30 s by default): check every second so a
    // body dribbled byte by byte is cut off near REQUEST_TIMEOUT_MS with a 408.
    serverFactory: (handler) =>
      createServer({ requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(1000, requestTimeout / 2), keepAliveTimeout: 5000 }, handler),
  });

  // Cross-origin isolation, so the demo's WASM threads (SharedArrayBuffer) work when served from here.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    reply.header('Cross-Origin-Embedder-Policy', 'require-corp');
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpSeconds.observe({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.setErrorHandler((error: FastifyError | RequestError | Error, _request, reply) => {
    if (error instanceof RequestError) return reply.status(error.statusCode).send({ error: error.message, field: error.field });
    if (error instanceof InvalidArgumentError) return reply.status(400).send({ error: error.message, field: error.argument });
    if (error instanceof DisposedError) return reply.status(503).send({ error: 'the server is shutting down' });
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const field = 'validation' in error && Array.isArray(error.validation) ? String(error.validation[0]?.instancePath ?? '') : '';
      return reply.status(status).send({ error: error.message, field });
    }
    return reply.status(500).send({ error: `internal error: ${error.message}` });
  });

  app.post<{ Body: NearestBody }>('/api/nearest', { schema: { body: nearestBody } }, async (request) => {
    const { k, method } = request.body;
    const query = queryVector(ctx, request.body, '');
    const self = request.body.word === undefined ? undefined : ctx.wordIndex.get(request.body.word);
    const exclude = new Set(self === undefined ? [] : [self]);
    const want = k + exclude.size;
    if (method === 'hnsw') {
      const t0 = monotonicClock();
      const hits = ctx.hnsw.search(unit(query), want, { ef: Math.max(64, want) });
      return { results: named(ctx, hits, exclude).slice(0, k), method, backends: [{ backend: 'hnsw (JavaScript graph search)', reason: 'approximate index' }], ms: monotonicClock() - t0 };
    }
    const run = await observed(ctx, () => ctx.vectors.search(query, want));
    return { results: named(ctx, run.value, exclude).slice(0, k), method, backends: run.backends, ms: run.ms };
  });

  app.post<{ Body: AnalogyBody }>('/api/analogy', { schema: { body: analogyBody } }, async (request) => {
    const { a, b, c, k } = request.body;
    const va = unit(wordVector(ctx, a, 'a'));
    const vb = unit(wordVector(ctx, b, 'b'));
    const vc = unit(wordVector(ctx, c, 'c'));
    const query = va.map((x, i) => x - (vb[i] ?? 0) + (vc[i] ?? 0));
    const exclude = new Set([a, b, c].map((w) => ctx.wordIndex.get(w) ?? -1));
    const run = await observed(ctx, () => ctx.vectors.search(query, k + 3));
    return { results: named(ctx, run.value, exclude).slice(0, k), backends: run.backends, ms: run.ms };
  });

  app.post<{ Body: BatchBody }>('/api/batch', { schema: { body: batchBody } }, async (request) => {
    const { queries, k } = request.body;
    const vectors = queries.map((q, i) => queryVector(ctx, q, `queries[${i}].`));
    const run = await observed(ctx, () => Promise.all(vectors.map((v) => ctx.batches.search(v, k))));
    return { results: run.value.map((hits) => named(ctx, hits)), batchSize: queries.length, backends: run.backends, ms: run.ms };
  });

  app.post<{ Body: SpreadBody }>('/api/spread', { schema: { body: spreadBody } }, async (request) => {
    const { word, synset, decay, threshold, maxHops, k } = request.body;
    let sources: number[];
    if (synset !== undefined) {
      const node = ctx.synsetIndex.get(synset);
      if (node === undefined) throw new RequestError(404, 'synset', `synset: "${synset}" is not in WordNet`);
      sources = [node];
    } else {
      sources = ctx.synsetsOf(word ?? '');
      if (sources.length === 0) throw new RequestError(404, 'word', `word: "${word ?? ''}" names no WordNet synset`);
    }
    const run = await observed(ctx, () =>
      spreadActivation(ctx.engine, ctx.graph, { sources: sources.map((node) => ({ node, activation: 1 })), decay, threshold, maxHops }),
    );
    const activation = run.value;
    const order: number[] = [];
    for (let i = 0; i < activation.length; i++) if ((activation[i] ?? 0) > 0) order.push(i);
    order.sort((x, y) => (activation[y] ?? 0) - (activation[x] ?? 0));
    const activated = order.slice(0, k).map((i) => ({ synset: ctx.wordnet.synsetIds[i] ?? '', lemmas: ctx.wordnet.lemmas[i] ?? [], activation: activation[i] ?? 0, gloss: ctx.wordnet.glosses[i] ?? '' }));
    return { sources: sources.map((i) => ctx.wordnet.synsetIds[i]), activated, reached: order.length, backends: run.backends, ms: run.ms };
  });

  app.get('/healthz', async (_request, reply) => {
    const backends = ctx.engine.backends().map((b) => ({ name: b.name, kind: b.kind, available: b.available, device: b.device ?? null, health: b.health }));
    const serving = backends.some((b) => b.available && b.health.state !== 'unhealthy' && b.health.state !== 'unavailable');
    return reply.status(serving ? 200 : 503).send({ status: serving ? 'ok' : 'unavailable', words: ctx.words.length, synsets: ctx.wordnet.synsetIds.length, backends });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  app.get('/trace', async () => ctx.engine.telemetry.toChromeTrace());

  if (options.demoDir !== undefined) await app.register(fastifyStatic, { root: options.demoDir, index: 'index.html' });
  return app;
}
