// The compute routes: nearest words (brute force through the BatchEngine, or HNSW), analogies, batches and
// spreading activation. Each is admitted by a limiter (admission.ts): nearest and analogy by the light one,
// batch and spread by the heavy one; every compute step waits for its turn of the event loop (turns.ts).
import { monotonicClock, type OpEvent } from '@tandem/core';
import { spreadActivation, type SearchHit } from '@tandem/memory';
import { limited, shedWhenFull } from './admission.ts';
import type { ServerContext } from './context.ts';
import { RequestError } from './errors.ts';
import { jsonStream } from './json-stream.ts';
import type { Limiter } from './limiter.ts';
import { queryVector, unit, wordRow } from './queries.ts';
import { analogyRoute, batchRoute, nearestRoute, spreadRoute } from './route-schemas.ts';
import { topPositive } from './top-values.ts';
import type { TypedApp } from './type-provider.ts';

/** The limiters the routes are admitted by. */
export interface SearchLimiters {
  /** Single searches: /api/nearest, /api/analogy. */
  readonly light: Limiter;
  /** Batches and spreading activation: /api/batch, /api/spread. */
  readonly heavy: Limiter;
}

/** Batch answer rows per streamed slice: ~70 KB of JSON at k = 100. */
const BATCH_ROWS_PER_SLICE = 16;

/** Ops whose backends a search reports. */
const SEARCH_OPS: ReadonlySet<string> = new Set(['cosineSimilarity', 'matmul', 'topK', 'spreadActivation']);

/** Runs `work` and reports the backends that ran search ops meanwhile (shared with concurrent requests). */
async function observed<T>(
  ctx: ServerContext,
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; backends: { backend: string; reason: string }[] }> {
  const seen: OpEvent[] = [];
  const stop = ctx.engine.telemetry.subscribe((e) => {
    if (e.ok && SEARCH_OPS.has(e.op)) seen.push(e);
  });
  const t0 = monotonicClock();
  try {
    const value = await work();
    const backends = new Map<string, string>();
    for (const e of seen) backends.set(`${e.op}@${e.backend}`, e.reason.kind);
    return {
      value,
      ms: monotonicClock() - t0,
      backends: [...backends].map(([backend, reason]) => ({ backend, reason })),
    };
  } finally {
    stop();
  }
}

function named(
  ctx: ServerContext,
  hits: readonly SearchHit[],
  exclude: ReadonlySet<number> = new Set(),
): { word: string; score: number }[] {
  return hits.filter((h) => !exclude.has(h.index)).map((h) => ({ word: ctx.words[h.index] ?? '?', score: h.score }));
}

/** Registers the compute routes. */
export function searchRoutes(app: TypedApp, ctx: ServerContext, limiters: SearchLimiters): void {
  const { light, heavy } = limiters;

  app.post(
    '/api/nearest',
    { schema: nearestRoute, onRequest: shedWhenFull(light) },
    limited(light, async (request) => {
      const { word, k, method } = request.body;
      const query = queryVector(ctx, request.body, '');
      const exclude = new Set(word === undefined ? [] : [wordRow(ctx, word, 'word')]);
      const want = k + exclude.size;
      if (method === 'hnsw') {
        await ctx.turns.next();
        const t0 = monotonicClock();
        const hits = ctx.hnsw.search(unit(query), want, { ef: Math.max(64, want) });
        return {
          results: named(ctx, hits, exclude).slice(0, k),
          method,
          backends: [{ backend: 'hnsw (graph search in wasm)', reason: 'approximate index' }],
          ms: monotonicClock() - t0,
        };
      }
      const run = await observed(ctx, () => ctx.batches.search(query, want));
      return { results: named(ctx, run.value, exclude).slice(0, k), method, backends: run.backends, ms: run.ms };
    }),
  );

  app.post(
    '/api/analogy',
    { schema: analogyRoute, onRequest: shedWhenFull(light) },
    limited(light, async (request) => {
      const { a, b, c, k } = request.body;
      const rows = [wordRow(ctx, a, 'a'), wordRow(ctx, b, 'b'), wordRow(ctx, c, 'c')];
      const [va, vb, vc] = rows.map((row) => unit(ctx.vectors.vector(row)));
      const query = (va ?? new Float32Array(ctx.dim)).map((x, i) => x - (vb?.[i] ?? 0) + (vc?.[i] ?? 0));
      const run = await observed(ctx, () => ctx.batches.search(query, k + rows.length));
      return { results: named(ctx, run.value, new Set(rows)).slice(0, k), backends: run.backends, ms: run.ms };
    }),
  );

  app.post(
    '/api/batch',
    { schema: batchRoute, onRequest: shedWhenFull(heavy) },
    limited(heavy, async (request, reply) => {
      const { queries, k } = request.body;
      const vectors = queries.map((q, i) => queryVector(ctx, q, `queries[${i}].`));
      const run = await observed(ctx, () => Promise.all(vectors.map((v) => ctx.batches.search(v, k))));
      // Up to 25,600 hits (1.1 MB): streamed a slice of rows per turn, after the slot is given back.
      const row = (hits: readonly SearchHit[]): string =>
        `[${hits.map((h) => `{"word":${JSON.stringify(ctx.words[h.index] ?? '?')},"score":${JSON.stringify(h.score)}}`).join(',')}]`;
      const suffix = `],"batchSize":${queries.length},"backends":${JSON.stringify(run.backends)},"ms":${JSON.stringify(run.ms)}}`;
      reply.type('application/json; charset=utf-8');
      return jsonStream('{"results":[', run.value, row, suffix, ctx.turns, BATCH_ROWS_PER_SLICE);
    }),
  );

  app.post(
    '/api/spread',
    { schema: spreadRoute, onRequest: shedWhenFull(heavy) },
    limited(heavy, async (request) => {
      const { word, synset, decay, threshold, maxHops, k } = request.body;
      let sources: number[];
      if (synset !== undefined) {
        const node = ctx.synsets.nodeOf(synset);
        if (node === undefined) throw new RequestError(404, 'synset', `synset: "${synset}" is not in WordNet`);
        sources = [node];
      } else {
        sources = ctx.synsets.synsetsOf(word ?? '');
        if (sources.length === 0) throw new RequestError(404, 'word', `word: "${word ?? ''}" names no WordNet synset`);
      }
      const run = await observed(ctx, async () => {
        await ctx.turns.next();
        return spreadActivation(ctx.engine, ctx.graph, {
          sources: sources.map((node) => ({ node, activation: 1 })),
          decay,
          threshold,
          maxHops,
        });
      });
      const activation = run.value;
      const { top, positive } = topPositive(activation, k);
      const activated = top.map((i) => ({
        synset: ctx.synsets.synsetId(i),
        lemmas: ctx.synsets.lemmas(i),
        activation: activation[i] ?? 0,
        gloss: ctx.synsets.gloss(i),
      }));
      return {
        sources: sources.map((i) => ctx.synsets.synsetId(i)),
        activated,
        reached: positive,
        backends: run.backends,
        ms: run.ms,
      };
    }),
  );
}
