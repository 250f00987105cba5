// npm run test:stress (part): the server (default engine, 50,000 words) under load from autocannon on 127.0.0.1.
//  1. Capacity: TANDEM_LOAD_CAPACITY_SECONDS (default 10) unthrottled from 32 connections: requests/s, p50/p99.
//  2. Sustained: TANDEM_LOAD_RATE requests/s (default 400) for TANDEM_LOAD_SECONDS (default 60) of /api/nearest over
//     random words from 32 connections: requests/s, p50/p99 latency, errors, non-2xx (must be 0).
//  3. Under attack: 15 s of ordinary traffic (100 requests/s) while hostile requests arrive: malformed JSON, deep
//     nesting, huge arrays, wrong types, a body over the limit (each must get a 4xx), and 50 slow bodies (sockets that
//     dribble a byte every 500 ms: each must be cut off by the request timeout). The ordinary traffic must see no
//     error; a normal request afterwards must succeed.
// Exits 1 on any failure.
import autocannon from 'autocannon';
import { connect } from 'node:net';
import { startServer } from '../../apps/server/src/start.ts';

const capacitySeconds = Number(process.env['TANDEM_LOAD_CAPACITY_SECONDS'] ?? 10);
const seconds = Number(process.env['TANDEM_LOAD_SECONDS'] ?? 60);
const rate = Number(process.env['TANDEM_LOAD_RATE'] ?? 400);
const server = await startServer({ port: 0, words: 50_000, log: (line) => console.log(`  ${line}`) });
console.log(`server at ${server.url} on ${server.backends.join('; ')}`);
const words = ['king', 'water', 'music', 'city', 'river', 'computer', 'green', 'run', 'house', 'science', 'france', 'money'];
const problems: string[] = [];

/** autocannon against /api/nearest with random words; `overallRate` undefined: as fast as it goes. */
function nearestLoad(durationS: number, connections: number, overallRate: number | undefined): Promise<autocannon.Result> {
  return autocannon({
    url: `${server.url}/api/nearest`,
    method: 'POST',
    connections,
    duration: durationS,
    ...(overallRate === undefined ? {} : { overallRate }),
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ word: words[Math.floor(Math.random() * words.length)], k: 10 }) }) }],
  });
}

/** Prints a load result and records a problem if any request failed. */
function report(name: string, result: autocannon.Result): void {
  console.log(`\n${name}`);
  console.log(`  requests/s: mean ${result.requests.average.toFixed(0)}, total ${result.requests.total}`);
  console.log(`  latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`);
  console.log(`  errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`);
  if (result.errors + result.timeouts + result.non2xx > 0) problems.push(`${name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
}

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
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(' ');
    }, 500);
    socket.on('data', (d) => (response += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: performance.now() - started, response: response.split('\r\n')[0] ?? '' });
    });
    socket.on('error', () => undefined);
  });
}

if (capacitySeconds > 0) report(`capacity: ${capacitySeconds} s unthrottled, 32 connections`, await nearestLoad(capacitySeconds, 32, undefined));
report(`sustained: ${seconds} s at a target of ${rate} req/s, 32 connections`, await nearestLoad(seconds, 32, rate));

const hostile: [string, string, number][] = [
  ['malformed JSON', '{"word": "king",', 400],
  ['deep nesting', `{"vector": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`, 400],
  ['huge array', JSON.stringify({ vector: new Array(60_000).fill(0.5) }), 400],
  ['over the limit', JSON.stringify({ vector: new Array(200_000).fill(0.5) }), 413],
  ['wrong types', JSON.stringify({ word: 42, k: 'many' }), 400],
  ['unknown fields', JSON.stringify({ word: 'king', sql: 'DROP TABLE' }), 400],
  ['out of range', JSON.stringify({ word: 'king', k: 1e9 }), 400],
];
console.log('\nunder attack: 15 s at 100 req/s of ordinary requests, with hostile requests and 50 slow bodies meanwhile');
const ordinary = nearestLoad(15, 8, 100);
const slow = Promise.all(Array.from({ length: 50 }, () => slowBody()));
for (let round = 0; round < 5; round++) {
  for (const [name, body, expected] of hostile) {
    const code = await status(body);
    if (round === 0) console.log(`  ${name.padEnd(16)} -> ${code}`);
    if (code !== expected) problems.push(`${name}: got ${code}, want ${expected}`);
  }
}
const slowResults = await slow;
const slowest = Math.max(...slowResults.map((s) => s.closedAfterMs));
const answered = new Set(slowResults.map((s) => s.response || 'closed without a response'));
console.log(`  slow bodies      -> all 50 closed within ${(slowest / 1000).toFixed(1)} s (${[...answered].join(', ')})`);
if (slowest > 30_000) problems.push(`a slow body stayed open ${(slowest / 1000).toFixed(1)} s`);
report('ordinary traffic during the attack', await ordinary);
const after = await status(JSON.stringify({ word: 'king', k: 3 }));
console.log(`  a normal request afterwards -> ${after}`);
if (after !== 200) problems.push(`a normal request afterwards got ${after}`);
await server.close();
console.log(problems.length === 0 ? '\nserver load: OK' : `\nserver load: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
process.exitCode = problems.length === 0 ? 0 : 1;
