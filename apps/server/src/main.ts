// The server's command line (npm start runs it after the main job):
//   node -C @tandem/source --import tsx apps/server/src/main.ts [--port 8080] [--host 127.0.0.1] [--words 50000]
// Serves the JSON API, and the demo at / when apps/demo/dist exists. Ctrl-C (SIGINT) or SIGTERM shuts it down
// gracefully: no new connections, requests in flight finish, the engine is disposed.
import path from 'node:path';
import type { LimiterSettings } from './limiter.ts';
import type { ServerLimits } from './settings.ts';
import { startServer } from './start.ts';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Exits with a message naming the flag, its value and the rule. */
function refuse(name: string, raw: string, rule: string): never {
  console.error(`--${name} ${raw}: ${rule}`);
  process.exit(2);
}

function integerFlag(name: string, fallback: number, max = 341_479): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) refuse(name, raw, `must be an integer from 0 to ${max}`);
  return n;
}

/** An optional integer flag >= 1 (undefined: the server's default). */
function optionalPositive(name: string): number | undefined {
  const raw = flag(name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) refuse(name, raw, 'must be an integer >= 1');
  return n;
}

/** --NAME-limit CONCURRENCY,QUEUE, e.g. --heavy-limit 2,8 (undefined: the default). */
function limitFlag(name: keyof ServerLimits): LimiterSettings | undefined {
  const raw = flag(`${name}-limit`);
  if (raw === undefined) return undefined;
  const [concurrency, queue] = raw.split(',').map(Number);
  if (concurrency === undefined || queue === undefined || !Number.isInteger(concurrency) || concurrency < 1 || !Number.isInteger(queue) || queue < 0) {
    refuse(`${name}-limit`, raw, 'must be CONCURRENCY,QUEUE: an integer >= 1, a comma, an integer >= 0');
  }
  return { concurrency, queue };
}

const limits: Partial<Record<keyof ServerLimits, LimiterSettings>> = {};
for (const name of ['light', 'heavy', 'trace'] as const) {
  const settings = limitFlag(name);
  if (settings !== undefined) limits[name] = settings;
}
const hostsRaw = flag('allowed-hosts') ?? process.env['TANDEM_ALLOWED_HOSTS'];
const idle = optionalPositive('idle-timeout');
const maxConnections = optionalPositive('max-connections');

const started = performance.now();
const server = await startServer({
  port: integerFlag('port', Number(process.env['PORT'] ?? 8080), 65_535),
  host: flag('host') ?? '127.0.0.1',
  words: integerFlag('words', 50_000),
  demoDir: path.resolve(import.meta.dirname, '../../demo/dist'),
  log: (line) => console.log(`  ${line}`),
  limits,
  debug: process.argv.includes('--debug') || process.env['TANDEM_SERVER_DEBUG'] === '1',
  ...(hostsRaw === undefined ? {} : { allowedHosts: hostsRaw.split(',') }),
  ...(idle === undefined ? {} : { socketIdleMs: idle }),
  ...(maxConnections === undefined ? {} : { maxConnections }),
});
console.log(`\nTandem server ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${server.url}`);
console.log(`Backends: ${server.backends.join('; ')}`);
console.log(`Try: curl -s ${server.url}/api/nearest -H 'content-type: application/json' -d '{"word":"king","k":5}'`);
console.log(`     curl -s ${server.url}/api/analogy -H 'content-type: application/json' -d '{"a":"king","b":"man","c":"woman","k":3}'`);
console.log(`     ${server.url}/healthz  ${server.url}/metrics  ${server.url}/trace  (Ctrl-C stops)`);
if (process.argv.includes('--debug') || process.env['TANDEM_SERVER_DEBUG'] === '1') console.log(`Debug details (driver strings, Node version): ${server.url}/debug`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: finishing requests in flight, then stopping`);
  await server.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
