// npm run test:stress (part): a soak of TANDEM_SOAK_MINUTES (default 10) of steady mixed requests (nearest,
// HNSW, analogy, batch, spreading activation) with the resident set size sampled every 10 s. Passes when RSS
// grows under 10% from the first sample after warm-up to the last, and the engine's telemetry ring stays at
// its capacity (bounded storage).
import autocannon from 'autocannon';
import { createEngine } from 'tandem';
import { startServer } from '../../apps/server/src/start.ts';

const minutes = Number(process.env['TANDEM_SOAK_MINUTES'] ?? 10);
const engine = await createEngine({ telemetryCapacity: 10_000 });
const server = await startServer({ port: 0, words: 50_000, engine });
const bodies = [
  ['/api/nearest', { word: 'king', k: 10 }],
  ['/api/nearest', { word: 'music', k: 10, method: 'hnsw' }],
  ['/api/analogy', { a: 'paris', b: 'france', c: 'italy', k: 5 }],
  ['/api/batch', { queries: [{ word: 'water' }, { word: 'fire' }, { word: 'earth' }], k: 5 }],
  ['/api/spread', { word: 'dog', maxHops: 2, k: 10 }],
] as const;
const samples: number[] = [];
const sampler = setInterval(() => {
  samples.push(process.memoryUsage().rss);
  console.log(`  t=${samples.length * 10}s rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
}, 10_000);
const result = await autocannon({
  url: server.url,
  connections: 8,
  overallRate: 200,
  duration: minutes * 60,
  requests: bodies.map(([path, body]) => ({ method: 'POST' as const, path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })),
});
clearInterval(sampler);
const warm = samples[Math.min(2, samples.length - 1)] ?? 0;
const last = samples.at(-1) ?? 0;
const growth = warm === 0 ? 0 : (last - warm) / warm;
const held = engine.telemetry.opEvents().length;
const { totalOps, droppedEvents } = engine.telemetry.summary();
await server.close();
await engine.dispose();
console.log(`telemetry: ${totalOps} op events recorded, ${held} held (capacity 10,000), ${droppedEvents} dropped: ${held <= 10_000 ? 'bounded' : 'UNBOUNDED'}`);
console.log(`soak: ${minutes} min, ${result.requests.total} requests, errors ${result.errors}, non-2xx ${result.non2xx}, p99 ${result.latency.p99} ms`);
console.log(`RSS after warm-up ${(warm / 2 ** 20).toFixed(0)} MiB -> end ${(last / 2 ** 20).toFixed(0)} MiB: ${(100 * growth).toFixed(1)}% (limit 10%)`);
process.exitCode = growth < 0.1 && held <= 10_000 && result.errors === 0 && result.non2xx === 0 ? 0 : 1;
