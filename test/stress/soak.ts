// npm run test:stress (part): a soak of TANDEM_SOAK_MINUTES (default 10) of steady mixed requests (nearest, HNSW,
// analogy, batch, spreading activation, and some bad requests) against the server, with the resident set size and
// the JS heap sampled every 10 s, more often in runs under 2.5 minutes (after a full GC when node runs with --expose-gc, so samples compare retained
// memory, not garbage not yet collected). Passes when the median RSS of the last minute is under 10% above the
// median of the minute after warm-up (the first minute; windows are a fifth of the run for runs under 5 minutes), the engine's telemetry ring holds at most its capacity
// (bounded storage), and no ordinary request failed.
import { median } from '@tandem/core';
import autocannon from 'autocannon';
import { createEngine } from 'tandem';
import { numberArg, parseCommandLine } from '../../apps/bench/src/command-line.ts';
import { startServer } from '../../apps/server/src/start.ts';

const args = parseCommandLine(
  {
    command: 'node --expose-gc -C @tandem/source --import tsx test/stress/soak.ts [--minutes N] [--max-growth PERCENT]',
    summary: 'A soak of steady mixed requests against the server, memory sampled every 10 s.',
  },
  {
    minutes: { type: 'string', help: 'how long, minutes (default 10; $TANDEM_SOAK_MINUTES)' },
    'max-growth': {
      type: 'string',
      help: 'RSS growth allowed from the window after warm-up to the last, percent (default 10; a run of seconds is still warming up)',
    },
  },
);
const maxGrowth = numberArg('--max-growth', args.text('max-growth'), 10, 0, 1_000_000, false) / 100;
const minutes = numberArg(
  '--minutes',
  args.text('minutes') ?? process.env['TANDEM_SOAK_MINUTES'],
  10,
  0.1,
  24 * 60,
  false,
);
const capacity = 10_000;
const engine = await createEngine({ telemetryCapacity: capacity });
const server = await startServer({ port: 0, words: 50_000, engine });
const ordinary = [
  ['/api/nearest', { word: 'king', k: 10 }],
  ['/api/nearest', { word: 'music', k: 10, method: 'hnsw' }],
  ['/api/analogy', { a: 'paris', b: 'france', c: 'italy', k: 5 }],
  ['/api/batch', { queries: [{ word: 'water' }, { word: 'fire' }, { word: 'earth' }], k: 5 }],
  ['/api/spread', { word: 'dog', maxHops: 2, k: 10 }],
] as const;
const bad = [
  ['/api/nearest', { word: 'zzzzqqq' }],
  ['/api/batch', { queries: 'king' }],
] as const;

/** gc() when node runs with --expose-gc (found on globalThis), else nothing. */
function collectGarbage(): void {
  const gc: unknown = Reflect.get(globalThis, 'gc');
  if (typeof gc === 'function') gc();
}

interface Sample {
  /** Seconds since the start. */
  readonly atS: number;
  /** Resident set size, bytes. */
  readonly rss: number;
  /** JS heap in use, bytes. */
  readonly heapUsed: number;
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
// Windows of a minute (a fifth of the run when it is shorter than 5 minutes): after warm-up, and at the end; each
// holds at least three samples (every 10 s, more often in short runs).
const windowS = Math.min(60, (minutes * 60) / 5);
const sampleEveryMs = Math.min(10_000, (windowS * 1000) / 3);
const started = performance.now();
const samples: Sample[] = [];
const sampler = setInterval(() => {
  collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  samples.push({ atS: (performance.now() - started) / 1000, rss, heapUsed });
  console.log(
    `  t=${((performance.now() - started) / 1000).toFixed(0)}s rss ${mib(rss)} heap ${mib(heapUsed)} telemetry events held ${engine.telemetry.opEvents().length}`,
  );
}, sampleEveryMs);
const result = await autocannon({
  url: server.url,
  connections: 8,
  overallRate: 200,
  duration: minutes * 60,
  requests: [...ordinary, ...bad].map(([path, body]) => ({
    method: 'POST' as const,
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })),
});
clearInterval(sampler);
const endS = samples.at(-1)?.atS ?? 0;
const warm = samples.filter((s) => s.atS > windowS && s.atS <= 2 * windowS + 1);
const lastMinute = samples.filter((s) => s.atS > endS - windowS - 1);
const rssStart = median(warm.map((s) => s.rss));
const rssEnd = median(lastMinute.map((s) => s.rss));
const heapStart = median(warm.map((s) => s.heapUsed));
const heapEnd = median(lastMinute.map((s) => s.heapUsed));
const growth = rssStart === 0 ? Number.NaN : (rssEnd - rssStart) / rssStart;
const held = engine.telemetry.opEvents().length;
const { totalOps, droppedEvents } = engine.telemetry.summary();
await server.close();
await engine.dispose();
// 2 of the 7 request kinds are bad on purpose (404 and 400): non-2xx must be exactly those.
const expectedBad = Math.round((result.requests.total * bad.length) / (ordinary.length + bad.length));
console.log(
  `telemetry: ${totalOps} op events recorded, ${held} held (capacity ${capacity}), ${droppedEvents} dropped: ${held <= capacity ? 'bounded' : 'UNBOUNDED'}`,
);
console.log(
  `soak: ${minutes} min, ${result.requests.total} requests (${result.requests.average.toFixed(0)}/s), errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx} (about ${expectedBad} sent bad on purpose), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
);
console.log(
  `RSS (median of a minute) after warm-up ${mib(rssStart)} -> end ${mib(rssEnd)}: ${(100 * growth).toFixed(1)}% (limit ${(100 * maxGrowth).toFixed(0)}%); JS heap ${mib(heapStart)} -> ${mib(heapEnd)}`,
);
const nonOkOk = Math.abs(result.non2xx - expectedBad) <= Math.max(10, expectedBad * 0.05);
const ok = growth < maxGrowth && held <= capacity && result.errors === 0 && result.timeouts === 0 && nonOkOk;
console.log(ok ? 'soak: OK' : 'soak: FAILED');
process.exitCode = ok ? 0 : 1;
