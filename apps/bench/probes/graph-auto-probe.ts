// Diagnostic (GPU machine, or here with a software GPU): where a graph strategy's time goes, per node, against the
// others, on one decode step of the decoder block (the same placement should cost the same). Strategies run
// interleaved, each run on a fork of one filled KV cache (replicated on the GPU, as the graph suite does); the
// first 20 rounds are not counted. Prints the first auto runs' plan choices, then per strategy the median total,
// the median time outside the nodes (all of the run's wall time, and the graph's own hostMs), auto's plan choosing
// time, the garbage collections that fell inside the runs, and each node's median.
//   node -C @tandem/source --import tsx apps/bench/probes/graph-auto-probe.ts [tiny|7b] [q4_0|f32] [rounds]
//   PROBE_STRATEGIES=auto,cpu-only,per-op (default cpu-only,gpu-only,auto)
//   PROBE_TOKENS=128: a prefill of 128 tokens (fresh cache each run) instead of a decode step
//   PROBE_LOG_RUNS=n: log auto's first n runs (default 12); then per assignment auto ran: runs, median ms, how chosen
//   PROBE_LOG_ALL=1: log every strategy's runs in those rounds
//   PROBE_SHUFFLE=1: rounds in shuffled orders, as the graph suite runs them (default: rotated)
import { median } from '@tandem/core';
import {
  DecoderBlock,
  createDecoderWeights,
  LLAMA_7B_DECODER,
  randomActivations,
  TINY_DECODER,
  type GraphStrategy,
} from '@tandem/graph';
import { graphBench } from '../src/graph/setup.ts';
import { shuffled } from '../src/order.ts';
import { PerformanceObserver } from 'node:perf_hooks';
import { numberArg, parseCommandLine } from '../src/command-line.ts';

const [size = 'tiny', weights = 'q4_0', roundsText = '200'] = parseCommandLine(
  {
    command:
      'node -C @tandem/source --import tsx apps/bench/probes/graph-auto-probe.ts [options] [size] [weights] [rounds]',
    summary: 'Where a graph strategy spends its time, per node, against the others.',
    positionals: [
      'size: tiny or 7b (default tiny)',
      'weights: q4_0 or f32 (default q4_0)',
      'rounds: (default 200); PROBE_* variables as above',
    ],
  },
  {},
).positionals;
const weightType = weights === 'f32' ? 'f32' : 'q4_0';
const rounds = numberArg('rounds', roundsText, 200, 21, 1_000_000);
const strategies: GraphStrategy[] = (process.env['PROBE_STRATEGIES'] ?? 'cpu-only,gpu-only,auto')
  .split(',')
  .map((s): GraphStrategy => (s === 'cpu-only' || s === 'gpu-only' || s === 'per-op' || s === 'split' ? s : 'auto'));
// PROBE_TOKENS=n (n > 1): a prefill of n tokens into a fresh cache instead of one decode step on the filled one.
const tokens = Number(process.env['PROBE_TOKENS'] ?? '1');

// The graph suite's engine and backend choice; `true`: TANDEM_WEBGPU as set (unset on the GPU machine, swiftshader here).
const { engine, preference } = await graphBench(true);
const { gpuBackend } = preference;
const block = DecoderBlock.create(
  engine,
  createDecoderWeights({ ...(size === '7b' ? LLAMA_7B_DECODER : TINY_DECODER), weightType }, 1),
);
const filled = block.newCache(513);
(
  await block.forward(randomActivations(block.config, 512, 4), filled, { ...preference, strategy: 'cpu-only' })
).outputs.dispose();
const held = filled.tensors();
for (const t of held === undefined ? [] : [held.k, held.v]) {
  const empty = engine.tensor(new Float32Array(0), [0, ...t.shape.slice(1)]);
  for (const copy of await engine.run({ op: 'concat', a: t, b: empty }, { strategy: { only: gpuBackend } }))
    copy.dispose();
  empty.dispose();
}

/** Appends `value` to the list under `key`. */
function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

const totals = new Map<string, number[]>();
const hostMs = new Map<string, number[]>(); // the graph's own time outside the nodes (report.hostMs)
const choosing = new Map<string, number[]>(); // auto's plan lookup and choice (placement.choosingMs)
const windows: Array<{ strategy: string; from: number; to: number }> = []; // counted runs, to attribute GCs
const collections: Array<{ at: number; ms: number }> = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push({ at: entry.startTime, ms: entry.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });
const outside = new Map<string, number[]>();
const perNode = new Map<string, number[]>(); // 'strategy node' -> ms
const nodeNames: string[] = [];
const logRuns = Number(process.env['PROBE_LOG_RUNS'] ?? '12');
const logAll = process.env['PROBE_LOG_ALL'] === '1'; // log every strategy's runs, not only auto's
const byAssignment = new Map<string, number[]>(); // auto's runs by assignment (first letter of each node's backend)
const estimates = new Map<string, number[]>(); // the plan's estimated total per assignment
for (let round = 0; round < rounds; round++) {
  // PROBE_SHUFFLE=1: each round in an order shuffled as the graph suite's are (else rotated).
  const order =
    process.env['PROBE_SHUFFLE'] === '1'
      ? shuffled(strategies, round)
      : strategies.map((_, j) => strategies[(round + j) % strategies.length] ?? 'auto');
  for (const strategy of order) {
    const cache = tokens > 1 ? block.newCache(tokens) : filled.fork();
    const t0 = performance.now();
    const step = await block.forward(randomActivations(block.config, tokens, 3), cache, { ...preference, strategy });
    await step.outputs.get('out').read();
    const ms = performance.now() - t0;
    step.outputs.dispose();
    cache.dispose();
    const report = step.report;
    if (strategy === 'auto') {
      const p = report.placement;
      const key = report.nodes.map((n) => n.backend[0]).join('');
      push(byAssignment, key, ms);
      push(byAssignment, `${key} ${p?.chosenBy ?? '-'}`, ms);
      push(estimates, key, p?.estimatedMs ?? NaN);
    }
    if ((strategy === 'auto' || logAll) && round < logRuns) {
      const p = report.placement;
      const how =
        p === undefined
          ? ''
          : `chosenBy ${p.chosenBy}, reused ${p.reused}, candidates ${p.candidates}, planning ${p.planningMs.toFixed(3)} ms, `;
      console.log(
        `${String(strategy)} run ${round}: ${ms.toFixed(3)} ms, ${how}placed ${report.nodes.map((n) => n.backend[0]).join('')}, moved ${report.bytesMoved} B, host ${report.hostMs.toFixed(3)} ms`,
      );
    }
    if (round < 20) continue;
    push(totals, String(strategy), ms);
    windows.push({ strategy: String(strategy), from: t0, to: t0 + ms });
    push(hostMs, String(strategy), report.hostMs);
    if (report.placement !== undefined) push(choosing, String(strategy), report.placement.choosingMs);
    push(outside, String(strategy), ms - report.nodes.reduce((sum, n) => sum + n.ms, 0));
    for (const n of report.nodes) {
      if (!nodeNames.includes(n.name)) nodeNames.push(n.name);
      push(perNode, `${String(strategy)} ${n.name}`, n.ms);
    }
  }
}
await new Promise((resolve) => setTimeout(resolve, 100)); // the last GC entries arrive asynchronously
gcObserver.disconnect();
for (const s of strategies) {
  const name = String(s);
  const list = totals.get(name) ?? [];
  const mine = windows.filter((w) => w.strategy === name);
  const gcs = collections.filter((c) => mine.some((w) => c.at >= w.from && c.at < w.to));
  const choosingText = choosing.has(name)
    ? `, choosing ${(median(choosing.get(name) ?? []) * 1000).toFixed(1)} us`
    : '';
  console.log(
    `${name}: median ${median(list).toFixed(3)} ms, min ${Math.min(...list).toFixed(3)} ms, outside the nodes ${median(outside.get(name) ?? []).toFixed(3)} ms ` +
      `(graph hostMs ${median(hostMs.get(name) ?? []).toFixed(3)} ms${choosingText}); GCs in its ${mine.length} runs: ${gcs.length}, ${gcs.reduce((sum, c) => sum + c.ms, 0).toFixed(2)} ms`,
  );
}
for (const [key, list] of byAssignment) {
  const est = estimates.get(key);
  console.log(
    `auto ran ${key}: ${list.length} runs, median ${median(list).toFixed(3)} ms${est === undefined ? '' : `, plan estimate ${median(est).toFixed(3)} ms`}`,
  );
}
for (const name of nodeNames) {
  console.log(
    `${name.padEnd(28)} ${strategies.map((s) => `${String(s)} ${(median(perNode.get(`${String(s)} ${name}`) ?? []) * 1000).toFixed(0)} us`).join('  ')}`,
  );
}
block.dispose();
filled.dispose();
await engine.dispose();
