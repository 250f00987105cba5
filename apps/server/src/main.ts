// The server's command line (npm start runs it after the main job); --help lists the flags:
//   node -C @tandem/source --import tsx apps/server/src/main.ts [--port 8080] [--host 127.0.0.1] [--words 50000]
// Serves the JSON API, and the demo at / when apps/demo/dist exists. Ctrl-C (SIGINT) or SIGTERM shuts it down
// gracefully: no new connections, requests in flight finish, the engine is disposed.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LimiterSettings } from './limiter.ts';
import type { ServerLimits } from './settings.ts';
import { startServer } from './start.ts';

const USAGE = `Usage: node -C @tandem/source --import tsx apps/server/src/main.ts [options]

  --port N                  port, 0..65535 (0: any free one; default $PORT or 8080)
  --host ADDRESS            interface to bind (default 127.0.0.1)
  --words N                 wink words to load, most frequent first, 1..341479 (default 50000)
  --allowed-hosts A,B       Host names answered on loopback ('*': any; default $TANDEM_ALLOWED_HOSTS or
                            localhost, 127.0.0.1, [::1])
  --light-limit C,Q         running and waiting requests of /api/nearest and /api/analogy (default 64,256)
  --heavy-limit C,Q         of /api/batch and /api/spread (default 2,8)
  --trace-limit C,Q         of /trace (default 2,8)
  --idle-timeout MS         close sockets with nothing moving for this long (default 15000)
  --max-connections N       most open connections (default 512)
  --log-level LEVEL         fastify's request log: trace, debug, info, warn, error, fatal or silent (default info)
  --profile FILE            start from this engine profile (JSON of engine.profile.export(), e.g. calibrated
                            on another machine of this kind; ignored, with the reason, if for other devices)
  --debug                   serve /debug (driver strings, failure messages, the Node version); or TANDEM_SERVER_DEBUG=1
  -h, --help                this text`;

/** Exits with a message naming the flag, its value and the rule. */
function refuse(name: string, raw: string, rule: string): never {
  console.error(`--${name} ${raw}: ${rule}\n\n${USAGE}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      words: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'light-limit': { type: 'string' },
      'heavy-limit': { type: 'string' },
      'trace-limit': { type: 'string' },
      'idle-timeout': { type: 'string' },
      'max-connections': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      profile: { type: 'string' },
      debug: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
}
try {
  parsed = parse();
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed.values;
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

/** An integer flag in [min, max] (`fallback` when absent). */
function integerFlag(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    refuse(name, raw, `must be an integer from ${min} to ${max}`);
  return n;
}

/** An optional integer flag >= 1 (undefined: the server's default). */
function optionalPositive(name: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : integerFlag(name, raw, 0, 1, Number.MAX_SAFE_INTEGER);
}

/** --NAME-limit CONCURRENCY,QUEUE, e.g. --heavy-limit 2,8 (undefined: the default). */
function limitFlag(name: keyof ServerLimits, raw: string | undefined): LimiterSettings | undefined {
  if (raw === undefined) return undefined;
  const [concurrency, queue, extra] = raw.split(',').map(Number);
  if (
    extra !== undefined ||
    concurrency === undefined ||
    queue === undefined ||
    !Number.isInteger(concurrency) ||
    concurrency < 1 ||
    !Number.isInteger(queue) ||
    queue < 0
  ) {
    refuse(`${name}-limit`, raw, 'must be CONCURRENCY,QUEUE: an integer >= 1, a comma, an integer >= 0');
  }
  return { concurrency, queue };
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
if (!LEVELS.includes(flags['log-level']))
  refuse('log-level', flags['log-level'], `must be one of ${LEVELS.join(', ')}`);
const limits: Partial<Record<keyof ServerLimits, LimiterSettings>> = {};
for (const [name, raw] of [
  ['light', flags['light-limit']],
  ['heavy', flags['heavy-limit']],
  ['trace', flags['trace-limit']],
] as const) {
  const settings = limitFlag(name, raw);
  if (settings !== undefined) limits[name] = settings;
}
const hostsRaw = flags['allowed-hosts'] ?? process.env['TANDEM_ALLOWED_HOSTS'];
const idle = optionalPositive('idle-timeout', flags['idle-timeout']);
const maxConnections = optionalPositive('max-connections', flags['max-connections']);
const debug = flags.debug || process.env['TANDEM_SERVER_DEBUG'] === '1';
const portRaw = flags.port ?? process.env['PORT'];

const started = performance.now();
const server = await startServer({
  port: integerFlag('port', portRaw, 8080, 0, 65_535),
  host: flags.host,
  words: integerFlag('words', flags.words, 50_000, 1, 341_479),
  demoDir: path.resolve(import.meta.dirname, '../../demo/dist'),
  log: (line) => console.log(`  ${line}`),
  logger: { level: flags['log-level'] },
  limits,
  debug,
  ...(hostsRaw === undefined ? {} : { allowedHosts: hostsRaw.split(',') }),
  ...(idle === undefined ? {} : { socketIdleMs: idle }),
  ...(maxConnections === undefined ? {} : { maxConnections }),
  ...(flags.profile === undefined ? {} : { profileFile: flags.profile }),
});
console.log(`\nTandem server ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${server.url}`);
console.log(`Backends: ${server.backends.join('; ')}`);
console.log(`Try: curl -s ${server.url}/api/nearest -H 'content-type: application/json' -d '{"word":"king","k":5}'`);
console.log(
  `     curl -s ${server.url}/api/analogy -H 'content-type: application/json' -d '{"a":"king","b":"man","c":"woman","k":3}'`,
);
console.log(
  `     ${server.url}/healthz  ${server.url}/metrics  ${server.url}/trace  ${server.url}/openapi.json  (Ctrl-C stops)`,
);
if (debug) console.log(`Debug details (driver strings, Node version): ${server.url}/debug`);

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
