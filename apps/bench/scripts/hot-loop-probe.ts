// Diagnostic (GPU machine): the dispatch suite's call-by-call comparison on one case (groups of four single calls,
// auto and one backend in ABBA order, no pauses), printed every 250 groups: where auto's calls ran, the median whole
// call of each side, what the engine has learned of that backend's read-backs near the output's size, and explain().
//   node -C @tandem/source --import tsx apps/bench/scripts/hot-loop-probe.ts "rope 512x8x64" rocm [groups]
// H100 dispatch runs X and Y (2026-11-23): in this phase auto ran rope 512x8x64 on wasm for 184 and 187 of ~700
// calls (wasm 0.64 ms a call, rocm 0.18-0.21), and matmul 512 on webgpu for 135 of 474.
import { monotonicClock, type Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases } from '../src/dispatch/cases.ts';
import { numberArg, parseCommandLine } from '../src/command-line.ts';

const [caseName = 'rope 512x8x64', bestName = 'rocm', groupsText = '2000'] = parseCommandLine({ command: 'node -C @tandem/source --import tsx apps/bench/scripts/hot-loop-probe.ts [options] [case] [backend] [groups]', summary: "The dispatch suite's call-by-call comparison on one case.", positionals: ['case: a dispatch case\'s name (default \'rope 512x8x64\')', 'backend: (default rocm)', 'groups: groups of four calls (default 2000)'] }, {}).positionals;
const engine = await createEngine();
const found = dispatchCases(engine).find((c) => c.name === caseName);
if (found === undefined) throw new Error(`no dispatch case named '${caseName}'`);
const c = found;
const best: Strategy = { only: bestName };
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

/** One whole call (run + read-back), its time and the backend it ran on. */
async function call(strategy: Strategy): Promise<{ ms: number; backend: string; outBytes: number }> {
  const t0 = monotonicClock();
  const outputs = await engine.run(c.call, { strategy: strategy });
  const bytes = await outputs[0]?.read();
  const ms = monotonicClock() - t0;
  for (const o of outputs) o.dispose();
  return { ms, backend: engine.telemetry.latestOpEvent()?.backend ?? '?', outBytes: bytes?.byteLength ?? 0 };
}

for (let i = 0; i < 10; i++) for (const s of ['auto', best] as const) await call(s);
let autoMs: number[] = [];
let bestMs: number[] = [];
let ran = new Map<string, number>();
let outBytes = 0;
const groups = numberArg('groups', groupsText, 2000, 1, 100_000_000);
for (let g = 0; g < groups; g++) {
  const order: Strategy[] = g % 2 === 0 ? ['auto', best, best, 'auto'] : [best, 'auto', 'auto', best];
  for (const s of order) {
    const r = await call(s);
    outBytes = r.outBytes;
    if (s === 'auto') {
      autoMs.push(r.ms);
      ran.set(r.backend, (ran.get(r.backend) ?? 0) + 1);
    } else bestMs.push(r.ms);
  }
  if ((g + 1) % 250 === 0) {
    const near = engine.copyTimes(bestName).download.filter((p) => p.bytes >= outBytes / 2 && p.bytes <= outBytes * 2);
    const e = engine.explain(c.call, { strategy: 'auto' });
    const costs = Object.entries(e.costsMs).map(([b, ms]) => `${b} ${ms.toFixed(3)} (copies ${(e.transfersMs[b] ?? 0).toFixed(3)})`).join(', ');
    console.log(`groups ${g + 1}: auto ran ${[...ran].map(([b, n]) => `${b} ${n}`).join(', ')}; median auto ${median(autoMs).toFixed(3)} ms, ${bestName} ${median(bestMs).toFixed(3)}; ${bestName} read-backs near ${outBytes} B: ${near.map((p) => `${p.bytes} B ${p.ms.toFixed(3)} ms`).join(', ')}; explain: ${e.selection.backend} by ${e.selection.reason.kind}: ${costs}`);
    autoMs = [];
    bestMs = [];
    ran = new Map();
  }
}
await engine.dispose();
