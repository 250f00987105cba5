// /metrics: prom-client's process metrics (less the Node version, which only /debug shows), a histogram of HTTP
// request durations, a count of every response by status (including the 400/408/431 written before a request was
// routed), connections dropped at the cap, idle sockets closed, the limiters' state, whether each backend is up,
// then the engine's own exposition (engine.telemetry.toPrometheus(): attempts by outcome, the duration histogram,
// fallbacks, bytes moved) as it is: one contract for the engine's metrics, no counters mirrored here.
import type { Engine } from '@tandem/core';
import type { Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Limiter } from './limiter.ts';

/** The server's metrics. */
export interface ServerMetrics {
  /** The server's own metrics (the engine's are appended by exposition()). */
  readonly registry: Registry;
  /** The whole /metrics text: the registry's metrics, then the engine's telemetry exposition. */
  exposition(): Promise<string>;
  /** HTTP request durations by route, method and status (requests that reached routing). */
  readonly httpSeconds: Histogram<'route' | 'method' | 'status'>;
  /** Every response by route, method and status; route 'unmatched' and method 'unknown' before routing. */
  readonly responses: Counter<'route' | 'method' | 'status'>;
  /** Connections closed at once because the server held its connection cap. */
  readonly droppedConnections: Counter;
  /** Sockets closed after the inactivity timeout (non-reading or silent clients). */
  readonly idleSocketsClosed: Counter;
  /** Exposes a limiter's active, queued, shed and abandoned counts. */
  watch(limiter: Limiter): void;
  /** Exposes the server's open connections. */
  watchServer(server: Server): void;
}

/** Registers process, HTTP and engine metrics. */
export function createMetrics(engine: Engine): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registry.removeSingleMetric('nodejs_version_info');
  const httpSeconds = new Histogram({
    name: 'tandem_http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const healthy = new Gauge({
    name: 'tandem_backend_up',
    help: '1 when the backend is available and not unhealthy',
    labelNames: ['backend'],
    registers: [registry],
    collect() {
      for (const b of engine.backends())
        this.set(
          { backend: b.name },
          b.available && b.health.state !== 'unhealthy' && b.health.state !== 'unavailable' ? 1 : 0,
        );
    },
  });
  const responses = new Counter({
    name: 'tandem_http_responses_total',
    help: 'HTTP responses by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const droppedConnections = new Counter({
    name: 'tandem_http_connections_dropped_total',
    help: 'Connections closed at once at the connection cap',
    registers: [registry],
  });
  const idleSocketsClosed = new Counter({
    name: 'tandem_http_idle_sockets_closed_total',
    help: 'Sockets closed after the inactivity timeout',
    registers: [registry],
  });
  const servers: Server[] = [];
  new Gauge({
    name: 'tandem_http_connections_open',
    help: 'Connections open now',
    registers: [registry],
    async collect() {
      const counts = await Promise.all(
        servers.map(
          (server) =>
            new Promise<number>((resolve) => server.getConnections((error, n) => resolve(error === null ? n : 0))),
        ),
      );
      this.set(counts.reduce((a, b) => a + b, 0));
    },
  });
  const limiters: Limiter[] = [];
  const limiterGauge = (name: string, help: string, read: (l: Limiter) => number): Gauge<'limiter'> =>
    new Gauge({
      name,
      help,
      labelNames: ['limiter'],
      registers: [registry],
      collect() {
        for (const l of limiters) this.set({ limiter: l.name }, read(l));
      },
    });
  limiterGauge('tandem_limiter_active', 'Requests holding a slot of the limiter', (l) => l.stats().active);
  limiterGauge('tandem_limiter_queued', 'Requests waiting for a slot of the limiter', (l) => l.stats().queued);
  const limiterCounter = (name: string, help: string, read: (l: Limiter) => number): Counter<'limiter'> =>
    new Counter({
      name,
      help,
      labelNames: ['limiter'],
      registers: [registry],
      collect() {
        this.reset();
        for (const l of limiters) this.inc({ limiter: l.name }, read(l));
      },
    });
  limiterCounter('tandem_limiter_shed_total', 'Requests refused with 503 by the limiter', (l) => l.stats().shed);
  limiterCounter(
    'tandem_limiter_abandoned_total',
    'Requests whose client left while waiting for a slot',
    (l) => l.stats().abandoned,
  );
  void healthy;
  const exposition = async (): Promise<string> => {
    const own = await registry.metrics();
    return `${own.endsWith('\n') ? own : `${own}\n`}${engine.telemetry.toPrometheus()}`;
  };
  return {
    registry,
    exposition,
    httpSeconds,
    responses,
    droppedConnections,
    idleSocketsClosed,
    watch: (limiter) => limiters.push(limiter),
    watchServer: (server) => servers.push(server),
  };
}
