// Diagnostic (GPU machine): how one dispatch case's call time on one backend is spread, back to back and after
// the dispatch suite's 20 ms pauses, with and without a large read-back between blocks; the cost model's resets.
//   node -C @tandem/source --import tsx apps/bench/probes/run-jitter-probe.ts ["mul 64x1024"] [rocm]
import { monotonicClock, percentile } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases } from '../src/dispatch/cases.ts';
import { parseCommandLine } from '../src/command-line.ts';

const [caseName = 'mul 64x1024', backend = 'rocm'] = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx apps/bench/probes/run-jitter-probe.ts [options] [case] [backend]',
    summary: "How one dispatch case's call time on one backend is spread.",
    positionals: ["case: a dispatch case's name (default 'mul 64x1024')", 'backend: (default rocm)'],
  },
  {},
).positionals;
const engine = await createEngine();
const cases = dispatchCases(engine);
const find = (name: string) => {
  const c = cases.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no dispatch case named '${name}'`);
  return c;
};
const probe = find(caseName);
const big = find('dequantize q8_0 1048576');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(c: typeof probe, only: string): Promise<{ run: number; read: number }> {
  const t0 = monotonicClock();
  const out = await engine.run(c.call, { strategy: { only } });
  const t1 = monotonicClock();
  await out[0]?.read();
  const t2 = monotonicClock();
  for (const t of out) t.dispose();
  return { run: t1 - t0, read: t2 - t1 };
}

for (let i = 0; i < 50; i++) await call(probe, backend);
for (const pattern of ['back to back', 'blocks of 8, 20 ms pause', 'blocks of 8, 20 ms pause, 4 MiB read between']) {
  const byPosition = new Map<number, number[]>();
  const runs: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < 480; i++) {
    const position = pattern === 'back to back' ? 0 : i % 8;
    if (position === 0 && pattern !== 'back to back') {
      if (pattern.includes('4 MiB')) await call(big, backend);
      await sleep(20);
    }
    const { run, read } = await call(probe, backend);
    runs.push(run);
    reads.push(read);
    byPosition.set(position, [...(byPosition.get(position) ?? []), run]);
  }
  const fmt = (v: number[]) =>
    `p10 ${percentile(v, 0.1).toFixed(3)} p50 ${percentile(v, 0.5).toFixed(3)} p90 ${percentile(v, 0.9).toFixed(3)} max ${Math.max(...v).toFixed(3)}`;
  console.log(`${caseName} on ${backend}, ${pattern}: run ${fmt(runs)} | read ${fmt(reads)}`);
  if (byPosition.size > 1)
    console.log(
      `  run median by position after the pause: ${[...byPosition.entries()].map(([p, v]) => `${p}: ${percentile(v, 0.5).toFixed(3)}`).join(', ')}`,
    );
}
const resets = engine.telemetry.noticeEvents().filter((n) => n.kind === 'cost-model-reset');
console.log(
  `cost-model resets: ${resets.length}${resets
    .slice(0, 6)
    .map((n) => `\n  ${n.detail}`)
    .join('')}`,
);
await engine.dispose();
