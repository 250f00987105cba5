// The server's command line (npm start runs it after the main job):
//   node --import tsx apps/server/src/main.ts [--port 8080] [--host 127.0.0.1] [--words 50000]
// Serves the JSON API, and the demo at / when apps/demo/dist exists. Ctrl-C (SIGINT) or SIGTERM shuts it down
// gracefully: no new connections, requests in flight finish, the engine is disposed.
import path from 'node:path';
import { startServer } from './start.ts';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 341_479) {
    console.error(`--${name} ${raw}: must be an integer from 0 to 341479`);
    process.exit(2);
  }
  return n;
}

const started = performance.now();
const server = await startServer({
  port: positiveInteger('port', Number(process.env['PORT'] ?? 8080)),
  host: flag('host') ?? '127.0.0.1',
  words: positiveInteger('words', 50_000),
  demoDir: path.resolve(import.meta.dirname, '../../demo/dist'),
  log: (line) => console.log(`  ${line}`),
});
console.log(`\nTandem server ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${server.url}`);
console.log(`Backends: ${server.backends.join('; ')}`);
console.log(`Try: curl -s ${server.url}/api/nearest -H 'content-type: application/json' -d '{"word":"king","k":5}'`);
console.log(`     curl -s ${server.url}/api/analogy -H 'content-type: application/json' -d '{"a":"king","b":"man","c":"woman","k":3}'`);
console.log(`     ${server.url}/healthz  ${server.url}/metrics  ${server.url}/trace  (Ctrl-C stops)`);

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
