// npm run test:stress (part): the server under load from autocannon on 127.0.0.1, then hostile requests.
//  1. A sustained rate (TANDEM_LOAD_RATE requests/s, default 400) for TANDEM_LOAD_SECONDS (default 60) of
//     /api/nearest over random words from 32 connections: requests/s, p50/p99 latency, errors, non-2xx.
//  2. Hostile requests while it serves: malformed JSON, deep nesting, huge arrays, wrong types, a body over the
//     limit, and slow bodies (sockets that dribble bytes): each gets a 4xx or is cut off, and a normal request
//     still succeeds afterwards.
import autocannon from 'autocannon';
import { connect } from 'node:net';
import { startServer } from '../../apps/server/src/start.ts';

const seconds = Number(process.env['TANDEM_LOAD_SECONDS'] ?? 60);
const rate = Number(process.env['TANDEM_LOAD_RATE'] ?? 400);
const server = await startServer({ port: 0, words: 50_000, log: (line) => console.log(`  ${line}`) });
console.log(`server at ${server.url} on ${server.backends.join('; ')}`);
const words = ['king', 'water', 'music', 'city', 'river', 'computer', 'green', 'run', 'house', 'science', 'france', 'money'];
let failures = 0;

const result = await autocannon({
  url: `${server.url}/api/nearest`,
  method: 'POST',
  connections: 32,
  overallRate: rate,
  duration: seconds,
  headers: { 'content-type': 'application/json' },
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ word: words[Math.floor(Math.random() * words.length)], k: 10 }) }) }],
});
const non2xx = result.non2xx;
console.log(`\nload: ${seconds} s at a target of ${rate} req/s, 32 connections`);
console.log(`  requests/s sustained: mean ${result.requests.average.toFixed(0)}, total ${result.requests.total}`);
console.log(`  latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`);
console.log(`  errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${non2xx}`);
if (result.errors + result.timeouts + non2xx > 0) failures++;

async function status(body: string): Promise<number> {
  const response = await fetch(`${server.url}/api/nearest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
  return response.status;
}

/** Opens a socket, sends headers promising a body, then dribbles a byte every 500 ms; resolves when the server closes it. */
function slowBody(): Promise<{ closedAfterMs: number; response: string }> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const started = performance.now();
    let response = '';
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`POST /api/nearest HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    });
    const timer = setInterval(() => socket.write(' '), 500);
    socket.on('data', (d) => (response += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: performance.now() - started, response: response.split('\r\n')[0] ?? '' });
    });
    socket.on('error', () => undefined);
  });
}

const hostile: [string, string][] = [
  ['malformed JSON', '{"word": "king",'],
  ['deep nesting', `{"vector": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`],
  ['huge array', JSON.stringify({ vector: new Array(60_000).fill(0.5) })],
  ['wrong types', JSON.stringify({ word: 42, k: 'many' })],
  ['unknown fields', JSON.stringify({ word: 'king', sql: 'DROP TABLE' })],
  ['out of range', JSON.stringify({ word: 'king', k: 1e9 })],
];
console.log('\nhostile requests:');
for (const [name, body] of hostile) {
  const code = await status(body);
  console.log(`  ${name.padEnd(16)} -> ${code}`);
  if (code < 400 || code >= 500) failures++;
}
const slow = await Promise.all([slowBody(), slowBody(), slowBody()]);
for (const s of slow) console.log(`  slow body        -> closed after ${(s.closedAfterMs / 1000).toFixed(1)} s (${s.response || 'no response'})`);
if (slow.some((s) => s.closedAfterMs > 30_000)) failures++;
const after = await status(JSON.stringify({ word: 'king', k: 3 }));
console.log(`  a normal request afterwards -> ${after}`);
if (after !== 200) failures++;
await server.close();
console.log(failures === 0 ? '\nserver load: OK' : `\nserver load: ${failures} problem(s)`);
process.exitCode = failures === 0 ? 0 : 1;
