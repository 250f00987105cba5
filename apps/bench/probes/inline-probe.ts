// Measurement (GPU machine): rocm ops run on the JS thread while the device queue is idle (RocmBackendOptions.inline,
// the default on a GPU) against the same ops through the worker thread (inline: false), side by side in one
// process: two engines, each with its own device, blocks of 20 whole calls ({ only: 'rocm' }, with the read-back)
// alternating ABBA per case; wasm on the first engine for reference. Prints per case the median call of each and
// the ratio queued / inline (> 1: inline faster).
//   node -C @tandem/source --import tsx apps/bench/probes/inline-probe.ts ["add 64x1024" ...]
import { median, monotonicClock, type Engine, type Strategy } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { createEngine, REFERENCE_FACTORY, WASM_FACTORY } from 'tandem';
import { dispatchCases, type DispatchCase } from '../src/dispatch/cases.ts';
import { parseCommandLine } from '../src/command-line.ts';

const DEFAULT_CASES = [
  'add 1x1024',
  'add 64x1024',
  'mul 64x1024',
  'scale 64x1024',
  'rmsNorm 64x1024',
  'softmax 64x1024',
  'rope 128x8x64',
  'rope 512x8x64',
  'matmul 64',
  'matmul 512',
  'add 1024x1024',
  'attention 128x8x64 causal',
];
const BLOCK = 20;
const BLOCKS = 24;

const engineWith = (inline: false | undefined): Promise<Engine> =>
  createEngine({
    factories: [
      { name: 'rocm', kind: 'gpu', create: async () => new RocmBackend(inline === false ? { inline } : {}) },
      WASM_FACTORY,
      REFERENCE_FACTORY,
    ],
  });
const inlined = await engineWith(undefined);
const queued = await engineWith(false);

/** One whole call (run, read-back, dispose), ms. */
async function call(engine: Engine, c: DispatchCase, strategy: Strategy): Promise<number> {
  const t0 = monotonicClock();
  const outputs = await engine.run(c.call, { strategy: strategy });
  await outputs[0]?.read();
  const ms = monotonicClock() - t0;
  for (const o of outputs) o.dispose();
  return ms;
}

const given = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx apps/bench/probes/inline-probe.ts [case ...]',
    summary: 'rocm ops inline against the worker thread, side by side.',
    positionals: ['case ...: dispatch case names (default: a few of each size)'],
  },
  {},
).positionals;
const names = given.length > 0 ? given : DEFAULT_CASES;
const casesA = dispatchCases(inlined);
const casesB = dispatchCases(queued);
const rocm: Strategy = { only: 'rocm' };
const wasm: Strategy = { only: 'wasm' };
for (const name of names) {
  const a = casesA.find((c) => c.name === name);
  const b = casesB.find((c) => c.name === name);
  if (a === undefined || b === undefined) throw new Error(`no dispatch case named '${name}'`);
  const sides = [
    { label: 'rocm inline', engine: inlined, c: a, strategy: rocm, ms: [] as number[] },
    { label: 'rocm queued', engine: queued, c: b, strategy: rocm, ms: [] as number[] },
    { label: 'wasm', engine: inlined, c: a, strategy: wasm, ms: [] as number[] },
  ];
  for (const s of sides) for (let i = 0; i < 5; i++) await call(s.engine, s.c, s.strategy);
  for (let k = 0; k < BLOCKS; k++) {
    for (const s of k % 2 === 0 ? sides : [...sides].reverse()) {
      for (let i = 0; i < BLOCK; i++) s.ms.push(await call(s.engine, s.c, s.strategy));
    }
  }
  const [inl, que, cpu] = sides.map((s) => median(s.ms));
  console.log(
    `${name.padEnd(28)} rocm inline ${inl?.toFixed(3)} ms, rocm queued ${que?.toFixed(3)} ms, wasm ${cpu?.toFixed(3)} ms; queued/inline ${((que ?? NaN) / (inl ?? NaN)).toFixed(2)}, wasm/inline ${((cpu ?? NaN) / (inl ?? NaN)).toFixed(2)}, wasm/queued ${((cpu ?? NaN) / (que ?? NaN)).toFixed(2)}`,
  );
}
await inlined.dispose();
await queued.dispose();
