// /metrics: prom-client's process metrics, a histogram of HTTP request durations, and the engine's per
// (op, backend) counters read from its telemetry at scrape time.
import type { Engine } from '@tandem/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The server's metrics. */
export interface ServerMetrics {
  /** Everything /metrics exposes. */
  readonly registry: Registry;
  /** HTTP request durations by route, method and status. */
  readonly httpSeconds: Histogram<'route' | 'method' | 'status'>;
}

/** Registers process, HTTP and engine metrics. */
export function createMetrics(engine: Engine): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpSeconds = new Histogram({
    name: 'tandem_http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const ops = new Counter({
    name: 'tandem_ops_total',
    help: 'Engine op attempts by op, backend and outcome',
    labelNames: ['op', 'backend', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of engine.telemetry.counterList()) {
        this.inc({ op: c.op, backend: c.backend, outcome: 'ok' }, c.ok);
        this.inc({ op: c.op, backend: c.backend, outcome: 'failed' }, c.failed);
      }
    },
  });
  const opSeconds = new Counter({
    name: 'tandem_op_seconds_total',
    help: 'Wall time of successful engine op attempts by op and backend',
    labelNames: ['op', 'backend'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of engine.telemetry.counterList()) this.inc({ op: c.op, backend: c.backend }, c.totalMs / 1000);
    },
  });
  const fallbacks = new Counter({
    name: 'tandem_fallbacks_total',
    help: 'Engine calls that ended on this backend after another failed',
    labelNames: ['op', 'backend'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of engine.telemetry.counterList()) this.inc({ op: c.op, backend: c.backend }, c.fallbacksIn);
    },
  });
  const healthy = new Gauge({
    name: 'tandem_backend_up',
    help: '1 when the backend is available and not unhealthy',
    labelNames: ['backend'],
    registers: [registry],
    collect() {
      for (const b of engine.backends()) this.set({ backend: b.name }, b.available && b.health.state !== 'unhealthy' && b.health.state !== 'unavailable' ? 1 : 0);
    },
  });
  void ops;
  void opSeconds;
  void fallbacks;
  void healthy;
  return { registry, httpSeconds };
}
