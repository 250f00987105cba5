// The HTTP API (fastify): search, analogy, batch, spreading activation, health, metrics, trace, and /debug when
// enabled. Every body is validated by a JSON schema (schemas.ts, types never coerced); compute is admitted by
// limiters and takes turns with I/O; sockets are capped and time out; every error is problem+json; every answer has a
// schema, and /openapi.json is the OpenAPI document made from them.
import { InvalidArgumentError } from '@tandem/core';
import Fastify from 'fastify';
import { createServer } from 'node:http';
import type { ServerContext } from './context.ts';
import { demoStatic } from './demo-static.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler } from './error-handlers.ts';
import { addGuards } from './guards.ts';
import { Limiter } from './limiter.ts';
import type { ServerMetrics } from './metrics.ts';
import { openApiDocument, type DocumentedRoute } from './openapi.ts';
import { opsRoutes } from './ops-routes.ts';
import { openApiRoute } from './route-schemas.ts';
import { searchRoutes } from './search-routes.ts';
import {
  BODY_LIMIT,
  DEFAULT_LIMITS,
  MAX_CONNECTIONS,
  REQUEST_TIMEOUT_MS,
  SOCKET_IDLE_MS,
  type AppOptions,
} from './settings.ts';
import type { SchemaTypes, TypedApp } from './type-provider.ts';

export { BODY_LIMIT, REQUEST_TIMEOUT_MS } from './settings.ts';
export type { AppOptions } from './settings.ts';

/** Keep-alive connections idle longer than this are closed, ms. */
const KEEP_ALIVE_MS = 5000;

/** `value` when it is an integer >= 1, else InvalidArgumentError naming the option. */
function positiveInteger(argument: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(argument, value, 'must be an integer >= 1');
  return value;
}

/** Builds the fastify app over a loaded context. */
export async function buildApp(
  ctx: ServerContext,
  metrics: ServerMetrics,
  options: AppOptions = {},
): Promise<TypedApp> {
  const requestTimeout = positiveInteger('requestTimeoutMs', options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  const socketIdleMs = positiveInteger('socketIdleMs', options.socketIdleMs ?? SOCKET_IDLE_MS);
  const maxConnections = positiveInteger('maxConnections', options.maxConnections ?? MAX_CONNECTIONS);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const light = new Limiter('light', limits.light);
  const heavy = new Limiter('heavy', limits.heavy);
  const trace = new Limiter('trace', limits.trace);
  for (const limiter of [light, heavy, trace]) metrics.watch(limiter);
  const log = options.log ?? (() => undefined);
  let closing = false;

  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    // Fastify's logger (pino, one JSON line per request and per error) when asked for; off when embedded in tests.
    logger: options.logger ?? false,
    // Types are checked, never converted: {"k": "3"} is a 400, not k = 3.
    ajv: { customOptions: { allErrors: false, removeAdditional: false, coerceTypes: false } },
    return503OnClosing: false, // the guards answer it as a problem
    clientErrorHandler: clientErrorHandler(metrics),
    frameworkErrors: frameworkErrorHandler,
    // Node checks request deadlines every connectionsCheckingInterval (30 s by default): check every second so a
    // body dribbled byte by byte is cut off near the request timeout with a 408.
    serverFactory: (handler) => {
      const server = createServer(
        {
          requestTimeout,
          headersTimeout: requestTimeout,
          connectionsCheckingInterval: Math.min(1000, requestTimeout / 2),
          keepAliveTimeout: KEEP_ALIVE_MS,
        },
        handler,
      );
      server.maxConnections = maxConnections;
      metrics.watchServer(server);
      server.on('drop', () => metrics.droppedConnections.inc());
      // A socket with nothing moving either way (a client that stopped reading its answer) is closed.
      server.setTimeout(socketIdleMs, (socket) => {
        metrics.idleSocketsClosed.inc();
        socket.destroy();
      });
      return server;
    },
  }).withTypeProvider<SchemaTypes>();

  const methodsByPath = new Map<string, Set<string>>();
  const documented: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) {
      methods.add(method);
      documented.push({ method, url: route.url, schema: route.schema });
    }
    methodsByPath.set(route.url, methods);
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  addGuards(app, { allowedHosts: options.allowedHosts, closing: () => closing });
  // Cross-origin isolation, so the demo's WASM threads (SharedArrayBuffer) work when served from here.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    reply.header('Cross-Origin-Embedder-Policy', 'require-corp');
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    };
    metrics.httpSeconds.observe(labels, reply.elapsedTime / 1000);
    metrics.responses.inc(labels);
  });
  app.setErrorHandler(errorHandler(log));
  app.setNotFoundHandler(notFoundHandler(methodsByPath));

  searchRoutes(app, ctx, { light, heavy });
  opsRoutes(app, ctx, metrics, trace, [light, heavy, trace], options.debug === true);
  let document: unknown;
  app.get('/openapi.json', { schema: openApiRoute }, async () => {
    document ??= openApiDocument(documented, {
      title: 'Tandem server',
      version: '0.1.0',
      description:
        'Nearest words, analogies, batches and spreading activation over WordNet on the Tandem engine; health, metrics and traces.',
    });
    return document;
  });
  if (options.demoDir !== undefined) await app.register(demoStatic, { root: options.demoDir });
  return app;
}
