// Diagnostic (GPU machine): one dispatch-suite case under 'auto' and under { only: <backend> }, in blocks of 10
// calls alternating ABBA, each call timed with its read-back; prints the medians (the run and the read-back apart)
// and where auto's calls ran and how many bytes they moved.
//   node -C @tandem/source --import tsx apps/bench/scripts/dispatch-auto-probe.ts "swiglu 1024x1024" rocm[,wasm,...]
// With several backends, blocks rotate over auto and each; the engine's own time per call (bind + run) and its final
// estimates (explain: cost and the part that is copies) are printed too.
// H100 host, 2026-11-23: swiglu 1024x1024 auto 2.54 vs rocm 2.57 ms; q8_0 1x2048x2048 auto 0.210 vs 0.197 ms.
import { monotonicClock, type Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases } from '../src/dispatch/cases.ts';
import { parseCommandLine } from '../src/command-line.ts';

const [caseName = 'swiglu 1024x1024', best = 'rocm'] = parseCommandLine({ command: 'node -C @tandem/source --import tsx apps/bench/scripts/dispatch-auto-probe.ts [options] [case] [backends]', summary: "One dispatch case under auto and under { only: backend }, in ABBA blocks.", positionals: ['case: a dispatch case\'s name (default \'swiglu 1024x1024\')', 'backends: comma-separated (default rocm)'] }, {}).positionals;
const engine = await createEngine();
const found = dispatchCases(engine).find((c) => c.name === caseName);
if (found === undefined) throw new Error(`no dispatch case named '${caseName}'`);
const c = found;
const strategies: Strategy[] = ['auto', ...best.split(',').map((only): Strategy => ({ only }))];
const label = (s: Strategy): string => (typeof s === 'object' ? s.only : s);

/** Appends `value` to the list under `key`. */
function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

for (let warm = 0; warm < 30; warm++) {
  for (const s of strategies) {
    const out = await engine.run(c.call, { strategy: s });
    await out[0]?.read();
    for (const t of out) t.dispose();
  }
}
const times = new Map<string, number[]>();
const moved = new Map<string, number[]>(); // 'strategy backend' -> bytes moved per call
for (let block = 0; block < 40; block++) {
  const rotated = strategies.map((_, i) => strategies[(i + block) % strategies.length] ?? 'auto');
  for (const s of block % 2 === 0 ? rotated : [...rotated].reverse()) {
    for (let i = 0; i < 10; i++) {
      const t0 = monotonicClock();
      const out = await engine.run(c.call, { strategy: s });
      const t1 = monotonicClock();
      await out[0]?.read();
      const t2 = monotonicClock();
      for (const t of out) t.dispose();
      const t3 = monotonicClock();
      const event = engine.telemetry.latestOpEvent();
      push(times, `${label(s)} total`, t2 - t0);
      push(times, `${label(s)} run`, t1 - t0);
      push(times, `${label(s)} read`, t2 - t1);
      push(times, `${label(s)} dispose`, t3 - t2);
      push(moved, `${label(s)} on ${event?.backend ?? '?'}`, event?.bytesMoved ?? 0);
      push(times, `${label(s)} engine (bind + run)`, event?.durationMs ?? NaN);
      if (event?.kernelMs !== undefined) push(times, `${label(s)} kernel`, event.kernelMs);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
for (const [key, list] of times) console.log(`${key}: median ${median(list).toFixed(3)} ms`);
for (const [key, list] of moved) console.log(`${key}: ${list.length} calls, median bytes moved ${median(list)}`);
const explained = engine.explain(c.call, { strategy: 'auto' });
console.log(`explain: ${Object.entries(explained.costsMs).map(([b, ms]) => `${b} ${ms.toFixed(3)} (copies ${(explained.transfersMs[b] ?? 0).toFixed(3)})`).join(', ')}`);
await engine.dispose();
