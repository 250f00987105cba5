// Measurement (GPU machine): read-backs of large outputs in a hot loop, where pinned host blocks come back only when
// the arrays holding them are collected (native-rocm/src/host_pool.h). Two engines side by side: rocm inline (the
// default on a GPU: no event-loop turn per call unless the pool is short) and rocm queued (inline: false: a turn per
// call). Blocks of 100 whole calls ({ only: 'rocm' }, run + read + dispose) alternate; prints per engine the median,
// 90th percentile and share over 0.5 ms of the read-backs, and what the engine learned of that read-back size.
//   node -C @tandem/source --import tsx apps/bench/probes/pinned-pressure-probe.ts ["scale 1024x1024"] [calls per engine]
import { monotonicClock, percentile, type Engine } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { createEngine, REFERENCE_FACTORY, WASM_FACTORY } from 'tandem';
import { dispatchCases, type DispatchCase } from '../src/dispatch/cases.ts';
import { numberArg, parseCommandLine } from '../src/command-line.ts';

const [caseName = 'scale 1024x1024', callsText = '3000'] = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx apps/bench/probes/pinned-pressure-probe.ts [options] [case] [calls]',
    summary: 'Read-backs of large outputs in a hot loop, rocm inline against queued.',
    positionals: ["case: a dispatch case's name (default 'scale 1024x1024')", 'calls: per engine (default 3000)'],
  },
  {},
).positionals;
const calls = numberArg('calls', callsText, 3000, 1, 100_000_000);
const BLOCK = 100;
const engineWith = (inline: false | undefined): Promise<Engine> =>
  createEngine({
    factories: [
      { name: 'rocm', kind: 'gpu', create: async () => new RocmBackend(inline === false ? { inline } : {}) },
      WASM_FACTORY,
      REFERENCE_FACTORY,
    ],
  });
/** One engine under test and the case on it (the cases' inputs are made once per engine). */
async function side(
  label: string,
  inline: false | undefined,
): Promise<{ label: string; engine: Engine; c: DispatchCase; reads: number[]; totals: number[]; outBytes: number }> {
  const engine = await engineWith(inline);
  const c = dispatchCases(engine).find((x) => x.name === caseName);
  if (c === undefined) throw new Error(`no dispatch case named '${caseName}'`);
  return { label, engine, c, reads: [], totals: [], outBytes: 0 };
}
const sides = [await side('inline', undefined), await side('queued', false)];

for (let done = 0; done < calls; done += BLOCK) {
  for (const side of done % (2 * BLOCK) === 0 ? sides : [...sides].reverse()) {
    for (let i = 0; i < BLOCK; i++) {
      const t0 = monotonicClock();
      const outputs = await side.engine.run(side.c.call, { strategy: { only: 'rocm' } });
      const t1 = monotonicClock();
      const bytes = await outputs[0]?.read();
      const t2 = monotonicClock();
      for (const o of outputs) o.dispose();
      side.reads.push(t2 - t1);
      side.totals.push(t2 - t0);
      side.outBytes = bytes?.byteLength ?? 0;
    }
  }
}
for (const side of sides) {
  const learned = side.engine
    .copyTimes('rocm')
    .download.filter((p) => p.bytes >= side.outBytes / 2 && p.bytes <= side.outBytes * 2);
  const slow = side.reads.filter((ms) => ms > 0.5).length / side.reads.length;
  console.log(
    `${caseName} rocm ${side.label}: whole call median ${percentile(side.totals, 0.5).toFixed(3)} ms; read-back of ${side.outBytes} B median ${percentile(side.reads, 0.5).toFixed(3)} ms, ` +
      `p90 ${percentile(side.reads, 0.9).toFixed(3)}, over 0.5 ms ${(100 * slow).toFixed(1)}%; learned ${learned.map((p) => `${p.bytes} B ${p.ms.toFixed(3)} ms`).join(', ')}`,
  );
  await side.engine.dispose();
}
