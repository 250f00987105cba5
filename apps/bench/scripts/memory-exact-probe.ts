// Diagnostic (GPU machine): where a batch of 1,000 exact top-10 searches over 341,479 x 100 random vectors spends
// its time, per strategy: VectorOps.searchMany, then each engine op's backend, kernel and wall time from telemetry.
//   node -C @tandem/source --import tsx apps/bench/scripts/memory-exact-probe.ts
import type { Strategy } from '@tandem/core';
import { createEngine } from 'tandem';
import { VectorOps } from '@tandem/memory';

const count = Number(process.env['PROBE_COUNT'] ?? 341_479);
const [dim, queries] = [100, 1000];
const rand = (n: number, seed: number): Float32Array => {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
};
const engine = await createEngine();
console.log('backends', engine.backends().map((b) => `${b.name}:${b.available}`).join(' '));
const ops = await VectorOps.create(engine, rand(count * dim, 1), dim);
const q = rand(queries * dim, 2);
if (process.env['PROBE_TRAIN'] === '1') {
  // As the memory suite's brute-force section does first: single-query searches on each backend alone, then auto.
  for (const b of engine.backends().filter((x) => x.available && x.name !== 'reference')) {
    for (let r = 0; r < 16; r++) await ops.search(q.subarray(r * dim, (r + 1) * dim), 10, { strategy: { only: b.name } });
  }
  for (let r = 0; r < 16; r++) await ops.search(q.subarray(r * dim, (r + 1) * dim), 10, { strategy: 'auto' });
  console.log('trained: 16 single-query searches per backend alone, then 16 under auto');
}
const strategies: Strategy[] = process.env['PROBE_STRATEGIES'] === 'auto' ? ['auto'] : [{ only: 'rocm' }, { only: 'webgpu' }, 'auto'];
for (const strategy of strategies) {
  for (let rep = 0; rep < 3; rep++) {
    const before = engine.telemetry.opEvents().length;
    const t0 = performance.now();
    await ops.searchMany(q, 10, { strategy });
    const ms = performance.now() - t0;
    const events = engine.telemetry.opEvents().slice(before);
    const byOp = new Map<string, { n: number; wall: number; kernel: number; moved: number; backends: Set<string> }>();
    for (const e of events) {
      const key = `${e.label ?? e.op}`;
      const acc = byOp.get(key) ?? { n: 0, wall: 0, kernel: 0, moved: 0, backends: new Set<string>() };
      acc.n++;
      acc.wall += e.durationMs;
      acc.moved += e.bytesMoved;
      acc.kernel += e.kernelMs ?? 0;
      acc.backends.add(e.backend);
      byOp.set(key, acc);
    }
    const detail = [...byOp].map(([k, v]) => `${k} x${v.n} on ${[...v.backends].join('/')} wall ${v.wall.toFixed(1)} kernel ${v.kernel.toFixed(1)} ms moved ${(v.moved / 1e6).toFixed(0)} MB`).join('; ');
    console.log(`${JSON.stringify(strategy)} rep ${rep}: ${ms.toFixed(1)} ms (${(queries / (ms / 1000)).toFixed(0)} q/s); ${detail}`);
  }
}
ops.dispose();
await engine.dispose();
