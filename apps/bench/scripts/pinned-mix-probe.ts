// Diagnostic (GPU machine): the pinned read-back pool under a mix of output sizes, as the dispatch suite loads it.
// Every dispatch case whose output is 64 KiB or more runs on rocm in a seeded random order (run + read + dispose,
// no pauses); prints per output size the read-back's median, 90th percentile and share over twice the fastest
// tenth (pageable copies), and the garbage collections seen (the pool's blocks come back only after one).
//   node -C @tandem/source --import tsx apps/bench/scripts/pinned-mix-probe.ts [calls] [backend]
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { createRng, monotonicClock } from '@tandem/core';
import { createEngine } from 'tandem';
import { dispatchCases } from '../src/dispatch/cases.ts';
import { numberArg, parseCommandLine } from '../src/command-line.ts';

const [callsText = '4000', backend = 'rocm'] = parseCommandLine({ command: 'node -C @tandem/source --import tsx apps/bench/scripts/pinned-mix-probe.ts [options] [calls] [backend]', summary: "The pinned read-back pool under a mix of output sizes.", positionals: ['calls: (default 4000)', 'backend: (default rocm)'] }, {}).positionals;
const calls = numberArg('calls', callsText, 4000, 1, 100_000_000);
const engine = await createEngine();
const only = { only: backend };
const sized: Array<{ name: string; call: Parameters<typeof engine.run>[0]; bytes: number }> = [];
for (const c of dispatchCases(engine)) {
  try {
    const out = await engine.run(c.call, { strategy: only });
    const bytes = (await out[0]?.read())?.byteLength ?? 0;
    for (const t of out) t.dispose();
    if (bytes >= 64 << 10) sized.push({ name: c.name, call: c.call, bytes });
  } catch {
    // a case this backend cannot run is left out
  }
}
const gcKinds = new Map<string, number>(); // GC kind -> count
const gcMs = new Map<string, number>(); // GC kind -> total ms
const kindName = (entry: PerformanceEntry & { readonly detail?: unknown }): string => {
  const detail = entry.detail;
  const kind = typeof detail === 'object' && detail !== null && 'kind' in detail ? detail.kind : undefined;
  return ({ 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' } as Record<string, string>)[String(kind)] ?? String(kind);
};
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = kindName(entry);
    gcKinds.set(kind, (gcKinds.get(kind) ?? 0) + 1);
    gcMs.set(kind, (gcMs.get(kind) ?? 0) + entry.duration);
  }
});
observer.observe({ entryTypes: ['gc'] });
const rng = createRng(7);
const reads = new Map<number, number[]>(); // output bytes -> read-back ms
const t0 = monotonicClock();
for (let i = 0; i < calls; i++) {
  const c = sized[rng.int(0, sized.length)];
  if (c === undefined) continue;
  const out = await engine.run(c.call, { strategy: only });
  const r0 = monotonicClock();
  await out[0]?.read();
  const list = reads.get(c.bytes) ?? [];
  list.push(monotonicClock() - r0);
  reads.set(c.bytes, list);
  for (const t of out) t.dispose();
}
const wallMs = monotonicClock() - t0;
await new Promise((resolve) => setTimeout(resolve, 50)); // let the observer deliver
observer.disconnect();
const quantile = (values: readonly number[], q: number): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)] ?? NaN;
console.log(`${calls} calls on ${backend} over ${sized.length} cases in ${wallMs.toFixed(0)} ms; garbage collections: ${[...gcKinds].map(([k, n]) => `${k} ${n} (${(gcMs.get(k) ?? 0).toFixed(1)} ms)`).join(', ') || 'none'}`);
for (const [bytes, list] of [...reads].sort((a, b) => a[0] - b[0])) {
  const fast = quantile(list, 0.1);
  const slow = list.filter((ms) => ms > 2 * fast).length / list.length;
  const learned = engine.copyTimes(backend).download.find((p) => p.bytes >= bytes / 2 && p.bytes <= bytes * 2);
  console.log(`read-back ${(bytes / 1024).toFixed(0)} KiB: ${list.length} calls, median ${quantile(list, 0.5).toFixed(3)} ms, p90 ${quantile(list, 0.9).toFixed(3)}, over 2x the fastest tenth ${(100 * slow).toFixed(1)}%; learned ${learned === undefined ? '-' : learned.ms.toFixed(3)} ms`);
}
await engine.dispose();
