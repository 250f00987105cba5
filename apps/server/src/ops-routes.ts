// Operations routes: /healthz (each backend's state, never limited or delayed by compute), /metrics (Prometheus,
// on a compute turn), /trace (streamed, through its own limiter) and, only when enabled, /debug: the driver and
// device strings, failure messages and the Node version that the other routes leave out.
import { acquireFor, sendOverloaded, serverBusy, shedWhenFull } from './admission.ts';
import type { ServerContext } from './context.ts';
import { AbandonedError, OverloadedError, type Limiter } from './limiter.ts';
import type { ServerMetrics } from './metrics.ts';
import { debugRoute, healthRoute, metricsRoute, traceRoute } from './route-schemas.ts';
import { traceStream } from './trace-stream.ts';
import type { TypedApp } from './type-provider.ts';

/** Most recent notices and failures /debug shows. */
const DEBUG_RECENT = 50;

/** Registers /healthz, /metrics, /trace and, when `debug`, /debug. */
export function opsRoutes(
  app: TypedApp,
  ctx: ServerContext,
  metrics: ServerMetrics,
  traceLimiter: Limiter,
  limiters: readonly Limiter[],
  debug: boolean,
): void {
  app.get('/healthz', { schema: healthRoute }, async (_request, reply) => {
    const backends = ctx.engine
      .backends()
      .map((b) => ({ name: b.name, kind: b.kind, available: b.available, state: b.health.state }));
    const serving = backends.some((b) => b.available && b.state !== 'unhealthy' && b.state !== 'unavailable');
    return reply.status(serving ? 200 : 503).send({
      status: serving ? 'ok' : 'unavailable',
      words: ctx.words.length,
      synsets: ctx.synsets.count,
      backends,
    });
  });

  app.get('/metrics', { schema: metricsRoute }, async (_request, reply) => {
    await ctx.turns.next();
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.exposition();
  });

  app.get('/trace', { schema: traceRoute, onRequest: shedWhenFull(traceLimiter) }, async (request, reply) => {
    let release: () => void;
    try {
      release = await serverBusy(request.raw.socket, request.server.server.timeout, () =>
        acquireFor(traceLimiter, reply),
      );
    } catch (error) {
      if (error instanceof OverloadedError) return sendOverloaded(request, reply, error);
      if (error instanceof AbandonedError) return reply.hijack();
      throw error;
    }
    const stream = traceStream(ctx.engine.telemetry, ctx.turns);
    stream.once('close', release); // sent, or destroyed with its socket
    return reply.type('application/json').send(stream);
  });

  if (!debug) return;
  app.get('/debug', { schema: debugRoute }, async () => {
    const telemetry = ctx.engine.telemetry;
    const failures = telemetry
      .opEvents()
      .filter((e) => !e.ok)
      .slice(-DEBUG_RECENT)
      .map((e) => ({ op: e.op, backend: e.backend, error: e.error ?? '', atMs: e.startMs - telemetry.originMs }));
    return {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      versions: process.versions,
      backends: ctx.engine.backends().map((b) => ({
        name: b.name,
        kind: b.kind,
        available: b.available,
        device: b.device ?? null,
        unavailableReason: b.unavailableReason ?? null,
        health: b.health,
      })),
      notices: telemetry.noticeEvents().slice(-DEBUG_RECENT),
      failures,
      limiters: limiters.map((l) => ({ name: l.name, ...l.settings, ...l.stats() })),
      turnsPending: ctx.turns.pending,
    };
  });
}
