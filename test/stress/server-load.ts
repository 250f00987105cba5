// npm run test:stress (part): the server (default engine, 50,000 words) in a child process, loaded from this one, so
// that the latencies measured here are not held up by the server's own event loop.
//  1. Capacity: TANDEM_LOAD_CAPACITY_SECONDS (default 10) of /api/nearest unthrottled from 32 connections
//     (autocannon, random words): requests/s, p50/p99. docs/decisions.md has the figures before issue 32.
//  2. Sustained: TANDEM_LOAD_RATE requests/s (default 400) for TANDEM_LOAD_SECONDS (default 60), 32 connections.
//  3. Heaviest: for TANDEM_LOAD_HEAVY_SECONDS (default 20), twice as many clients as the heavy limiter admits
//     (running + waiting) send the most expensive valid requests back to back (batches of 256 word or vector queries
//     with k = 100, spreads of 10 hops with no threshold over all of WordNet; after a 503 a client waits as long as
//     Retry-After says), two more read /trace in a loop, and
//     /healthz is probed every 10 ms. Must hold: /healthz p99 under TANDEM_LOAD_HEALTHZ_P99_MS (default 50), the
//     excess answered 503 with Retry-After, no other error status, every request answered (nothing lost), every
//     answer right. The server's event-loop lag over the phase comes from its /metrics.
//  4. Under attack: 15 s of ordinary traffic (100 requests/s) while hostile requests arrive (each must get its
//     4xx) and 50 slow bodies dribble a byte every 500 ms (each must be cut off); the ordinary traffic sees no error.
// TANDEM_LOAD_PHASES (default capacity,sustained,heavy,attack) or --phases picks phases; --help lists the flags. Exits
// 1 on any failure.
import { percentile } from '@tandem/core';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { numberArg, parseCommandLine, refuseArgs } from '../../apps/bench/src/command-line.ts';
import { DEFAULT_LIMITS } from '../../apps/server/src/settings.ts';
import {
  call as callRoute,
  metricValue,
  metricValues,
  probeHealth,
  rawExchange,
  type CallResult,
} from '../../apps/server/src/testing/http-probes.ts';

const args = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx test/stress/server-load.ts [options]',
    summary:
      'The server under load in four phases (see the top of the file); each flag overrides its TANDEM_LOAD_* variable.',
  },
  {
    phases: { type: 'string', help: 'capacity,sustained,heavy,attack or a subset ($TANDEM_LOAD_PHASES)' },
    'capacity-seconds': { type: 'string', help: 'unthrottled phase, s (default 10; $TANDEM_LOAD_CAPACITY_SECONDS)' },
    seconds: { type: 'string', help: 'sustained phase, s (default 60; $TANDEM_LOAD_SECONDS)' },
    rate: { type: 'string', help: 'sustained requests/s (default 400; $TANDEM_LOAD_RATE)' },
    'heavy-seconds': { type: 'string', help: 'heaviest phase, s (default 20; $TANDEM_LOAD_HEAVY_SECONDS)' },
    'healthz-p99-ms': {
      type: 'string',
      help: '/healthz p99 bound in the heaviest phase (default 50; $TANDEM_LOAD_HEALTHZ_P99_MS)',
    },
  },
);
const setting = (flag: Parameters<typeof args.text>[0], variable: string): string | undefined =>
  args.text(flag) ?? process.env[variable];
const capacitySeconds = numberArg(
  '--capacity-seconds',
  setting('capacity-seconds', 'TANDEM_LOAD_CAPACITY_SECONDS'),
  10,
  1,
  3600,
);
const seconds = numberArg('--seconds', setting('seconds', 'TANDEM_LOAD_SECONDS'), 60, 1, 3600);
const rate = numberArg('--rate', setting('rate', 'TANDEM_LOAD_RATE'), 400, 1, 100_000);
const heavySeconds = numberArg('--heavy-seconds', setting('heavy-seconds', 'TANDEM_LOAD_HEAVY_SECONDS'), 20, 1, 3600);
const healthzTargetMs = numberArg(
  '--healthz-p99-ms',
  setting('healthz-p99-ms', 'TANDEM_LOAD_HEALTHZ_P99_MS'),
  50,
  1,
  60_000,
  false,
);
const PHASES = ['capacity', 'sustained', 'heavy', 'attack'];
const phases = new Set((setting('phases', 'TANDEM_LOAD_PHASES') ?? PHASES.join(',')).split(','));
for (const phase of phases)
  if (!PHASES.includes(phase))
    refuseArgs(
      `--phases: unknown phase '${phase}'; phases: ${PHASES.join(', ')}`,
      { command: 'test/stress/server-load.ts', summary: '' },
      {},
    );
const words = [
  'king',
  'water',
  'music',
  'city',
  'river',
  'computer',
  'green',
  'run',
  'house',
  'science',
  'france',
  'money',
];
const problems: string[] = [];

/** The load average of this machine over the last minute, and its cores (the figures depend on both). */
const machine = (): string => `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;

/** Starts apps/server/src/main.ts in a child process (this process's node flags) and resolves with its URL. */
function startChild(): Promise<{ url: string; stop: () => Promise<void> }> {
  const main = path.resolve(import.meta.dirname, '../../apps/server/src/main.ts');
  // The request log at warn: a line per request would cost the server CPU that issue 32's figures did not include.
  const child = spawn(
    process.execPath,
    [...process.execArgv, main, '--port', '0', '--words', '50000', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const ready = /ready in .* at (http:\/\/\S+)/.exec(out);
      if (ready?.[1] === undefined || !out.includes('Backends:')) return;
      child.stdout.off('data', onData);
      child.stdout.resume(); // later output is dropped
      for (const line of out.split('\n')) if (/Backends:/.test(line)) console.log(`server: ${line.trim()}`);
      resolve({
        url: ready[1],
        stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))),
      });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready:\n${out}`)));
  });
}

const server = await startChild();
console.log(`server at ${server.url} (child process); ${machine()}`);

/** autocannon against /api/nearest with random words; `overallRate` undefined: as fast as it goes. */
function nearestLoad(
  durationS: number,
  connections: number,
  overallRate: number | undefined,
): Promise<autocannon.Result> {
  return autocannon({
    url: `${server.url}/api/nearest`,
    method: 'POST',
    connections,
    duration: durationS,
    ...(overallRate === undefined ? {} : { overallRate }),
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ word: words[Math.floor(Math.random() * words.length)], k: 10 }),
        }),
      },
    ],
  });
}

/** Prints a load result and records a problem if any request failed. */
function report(name: string, result: autocannon.Result): void {
  console.log(`\n${name}; ${machine()}`);
  console.log(`  requests/s: mean ${result.requests.average.toFixed(0)}, total ${result.requests.total}`);
  console.log(`  latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`);
  console.log(`  errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`);
  if (result.errors + result.timeouts + result.non2xx > 0)
    problems.push(`${name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
}

/** call() against the server. */
const call = (route: string, body?: string): Promise<CallResult> => callRoute(server.url, route, body);

if (phases.has('capacity') && capacitySeconds > 0)
  report(
    `capacity: ${capacitySeconds} s unthrottled, 32 connections`,
    await nearestLoad(capacitySeconds, 32, undefined),
  );
if (phases.has('sustained') && seconds > 0)
  report(`sustained: ${seconds} s at a target of ${rate} req/s, 32 connections`, await nearestLoad(seconds, 32, rate));
if (phases.has('heavy') && heavySeconds > 0) await heavyPhase();
if (phases.has('attack')) await attackPhase();

/** A search answer's rows of [word, score] (one row for /api/spread: its activated synsets and activations). */
function rows(text: string): [string, number][][] {
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'object' || json === null) return [];
  if ('results' in json && Array.isArray(json.results))
    return json.results.map((row: { word: string; score: number }[]) =>
      row.map((h): [string, number] => [h.word, h.score]),
    );
  if ('activated' in json && Array.isArray(json.activated))
    return [
      json.activated.map((a: { synset: string; activation: number }): [string, number] => [a.synset, a.activation]),
    ];
  return [];
}

/**
 * Whether two answers agree: the same scores rank by rank within 1e-5 (batches are scored by matmul or by the
 * cosine kernel depending on how the BatchEngine grouped the queries: f32 rounding differs) and the same names,
 * except where a neighbouring score is that close (a tie may fall either way).
 */
function sameAnswer(a: string, b: string): boolean {
  const [ra, rb] = [rows(a), rows(b)];
  if (ra.length === 0 || ra.length !== rb.length) return false;
  return ra.every((row, i) => {
    const other = rb[i] ?? [];
    if (row.length !== other.length) return false;
    return row.every(([name, score], j) => {
      const [otherName, otherScore] = other[j] ?? ['', Number.NaN];
      const tied =
        Math.abs((row[j - 1]?.[1] ?? Infinity) - score) < 1e-5 ||
        Math.abs((row[j + 1]?.[1] ?? -Infinity) - score) < 1e-5;
      return Math.abs(score - otherScore) < 1e-5 && (tied || name === otherName);
    });
  });
}

/** Phase 3 (see the top of the file). */
async function heavyPhase(): Promise<void> {
  const { concurrency, queue } = DEFAULT_LIMITS.heavy;
  const clients = 2 * (concurrency + queue);
  const queries = Array.from({ length: 256 }, (_, i) => words[i % words.length] ?? 'king');
  const byWord = JSON.stringify({ queries: queries.map((word) => ({ word })), k: 100 });
  const vectors = JSON.stringify({
    queries: queries.map((_, i) => ({
      vector: Array.from({ length: 100 }, (_, j) => Number(Math.sin(i * 100 + j + 1).toFixed(4))),
    })),
    k: 100,
  });
  const spread = JSON.stringify({ word: 'run', maxHops: 10, decay: 1, threshold: 0, k: 100 });
  const kinds = [byWord, vectors, spread];
  const reference = await Promise.all(kinds.map((body) => call(body === spread ? '/api/spread' : '/api/batch', body)));
  const counts = { answered: 0, shed: 0, wrong: 0, otherStatus: new Map<number, number>(), badRetryAfter: 0 };
  await metricValue(server.url, 'nodejs_eventloop_lag_max_seconds'); // a scrape resets the server's lag histogram
  const prober = probeHealth(server.url, 10);
  const until = performance.now() + heavySeconds * 1000;
  const heavyClient = async (i: number): Promise<void> => {
    for (let n = i; performance.now() < until; n++) {
      const kind = n % kinds.length;
      const answer = await call(kind === 2 ? '/api/spread' : '/api/batch', kinds[kind]);
      if (answer.status === 200) {
        counts.answered++;
        if (!sameAnswer(answer.text, reference[kind]?.text ?? '')) counts.wrong++;
      } else if (answer.status === 503) {
        counts.shed++;
        const retryAfterS = Number(answer.retryAfter);
        if (!(retryAfterS >= 1)) counts.badRetryAfter++;
        // A well-behaved client waits as told (at most until the phase ends).
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(retryAfterS * 1000, Math.max(0, until - performance.now()))),
        );
      } else counts.otherStatus.set(answer.status, (counts.otherStatus.get(answer.status) ?? 0) + 1);
    }
  };
  const traceClient = async (): Promise<number> => {
    let traces = 0;
    while (performance.now() < until) if ((await call('/trace')).status === 200) traces++;
    return traces;
  };
  const [, traces] = await Promise.all([
    Promise.all(Array.from({ length: clients }, (_, i) => heavyClient(i))),
    Promise.all([traceClient(), traceClient()]),
  ]);
  const health = await prober.stop();
  const [lagP99 = Number.NaN, lagMax = Number.NaN] = (
    await metricValues(server.url, ['nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds'])
  ).map((s) => s * 1000);
  const p99 = percentile(health.latenciesMs, 0.99);
  const other = [...counts.otherStatus].map(([s, n]) => `${n} x ${s === 0 ? 'no answer' : s}`).join(', ') || 'none';
  console.log(
    `\nheaviest: ${heavySeconds} s, ${clients} clients (2 x the heavy limit: ${concurrency} running + ${queue} waiting), 2 reading /trace; ${machine()}`,
  );
  console.log(
    `  heavy requests: ${counts.answered} answered (${(counts.answered / heavySeconds).toFixed(1)}/s), ${counts.shed} shed with 503 (clients then wait Retry-After), other statuses: ${other}, wrong answers: ${counts.wrong}`,
  );
  console.log(`  /trace: ${traces.reduce((a, b) => a + b, 0)} whole traces`);
  console.log(
    `  /healthz every 10 ms: ${health.latenciesMs.length} answered, p50 ${percentile(health.latenciesMs, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...health.latenciesMs).toFixed(1)} ms (target p99 < ${healthzTargetMs} ms)`,
  );
  console.log(`  server event-loop lag over the phase: p99 ${lagP99.toFixed(1)} ms, max ${lagMax.toFixed(1)} ms`);
  if (reference.some((r) => r.status !== 200))
    problems.push(`heaviest: a reference request failed (${reference.map((r) => r.status).join(', ')})`);
  if (!(p99 < healthzTargetMs))
    problems.push(`heaviest: /healthz p99 ${p99.toFixed(1)} ms, target < ${healthzTargetMs} ms`);
  if (health.statuses.some((s) => s !== 200))
    problems.push(`heaviest: /healthz answered ${[...new Set(health.statuses)].join(', ')}`);
  if (counts.shed === 0) problems.push('heaviest: nothing was shed at twice the limit');
  if (counts.otherStatus.size > 0) problems.push(`heaviest: statuses other than 200 and 503: ${other}`);
  if (counts.wrong > 0) problems.push(`heaviest: ${counts.wrong} wrong answers`);
  if (counts.badRetryAfter > 0) problems.push(`heaviest: ${counts.badRetryAfter} 503s without a Retry-After >= 1`);
}

/** Phase 4 (see the top of the file). */
async function attackPhase(): Promise<void> {
  const hostile: [string, string, number][] = [
    ['malformed JSON', '{"word": "king",', 400],
    ['deep nesting', `{"vector": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`, 400],
    ['huge array', JSON.stringify({ vector: new Array(60_000).fill(0.5) }), 400],
    ['over the limit', JSON.stringify({ vector: new Array(200_000).fill(0.5) }), 413],
    ['wrong types', JSON.stringify({ word: 42, k: 'many' }), 400],
    ['coerced types', JSON.stringify({ word: true, k: '3' }), 400],
    ['unknown fields', JSON.stringify({ word: 'king', sql: 'DROP TABLE' }), 400],
    ['out of range', JSON.stringify({ word: 'king', k: 1e9 }), 400],
  ];
  console.log(
    '\nunder attack: 15 s at 100 req/s of ordinary requests, with hostile requests and 50 slow bodies meanwhile',
  );
  const ordinary = nearestLoad(15, 8, 100);
  const host = new URL(server.url).host;
  const slowBody = `POST /api/nearest HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;
  const slow = Promise.all(
    Array.from({ length: 50 }, () => rawExchange(server.url, [slowBody], { everyMs: 500, dribble: ' ' })),
  );
  for (let round = 0; round < 5; round++) {
    for (const [name, body, expected] of hostile) {
      const { status } = await call('/api/nearest', body);
      if (round === 0) console.log(`  ${name.padEnd(16)} -> ${status}`);
      if (status !== expected) problems.push(`${name}: got ${status}, want ${expected}`);
    }
  }
  const slowResults = await slow;
  const slowest = Math.max(...slowResults.map((s) => s.openMs));
  const answered = new Set(slowResults.map((s) => s.firstLine || 'closed without a response'));
  console.log(
    `  slow bodies      -> all 50 closed within ${(slowest / 1000).toFixed(1)} s (${[...answered].join(', ')})`,
  );
  if (slowest > 30_000) problems.push(`a slow body stayed open ${(slowest / 1000).toFixed(1)} s`);
  report('ordinary traffic during the attack', await ordinary);
  const after = await call('/api/nearest', JSON.stringify({ word: 'king', k: 3 }));
  console.log(`  a normal request afterwards -> ${after.status}`);
  if (after.status !== 200) problems.push(`a normal request afterwards got ${after.status}`);
}

await server.stop();
console.log(
  problems.length === 0
    ? '\nserver load: OK'
    : `\nserver load: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
