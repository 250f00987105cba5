// The engine's own cost per call (issue 28): a tiny add through engine.run({ only: backend }) against the same add
// through the backend's run() directly, interleaved call by call, medians of rounds. Prints one line.
//   node -C @tandem/source --import tsx apps/bench/probes/engine-call-cost-probe.ts [elements] [rounds] [wasm|rocm]
// rocm: the addon RocmBackend finds (TANDEM_ROCM_ADDON=packages/rocm/build/emulated/tandem_rocm.node: the CPU emulation).
import { Engine, monotonicClock, sampleStats, type BoundTensor, type Op } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { WasmBackend } from '@tandem/wasm';

const elements = Number(process.argv[2] ?? 16);
const rounds = Number(process.argv[3] ?? 15);
const which = process.argv[4] ?? 'wasm';
const CALLS_PER_ROUND = 2000;

const backend =
  which === 'rocm'
    ? new RocmBackend(process.env['PROBE_INLINE'] === '1' ? { inline: { opMs: Infinity, copyBytes: Infinity } } : {})
    : new WasmBackend({ threads: 1 });
await backend.init();
const engine = await Engine.create({ backends: [backend] });
const spec = { dtype: 'f32' as const, shape: [elements] };
const ones = new Float32Array(elements).fill(1);
const bytes = new Uint8Array(ones.buffer);
const a: BoundTensor = { ...spec, buffer: await backend.upload(bytes, spec) };
const b: BoundTensor = { ...spec, buffer: await backend.upload(bytes, spec) };
const direct: Op<BoundTensor> = { op: 'add', a, b };
const engineA = engine.tensor(ones, [elements]);
const engineB = engine.tensor(ones, [elements]);

/** One awaited backend.run of the add, its outputs freed; ms. */
async function directCall(): Promise<number> {
  const t0 = monotonicClock();
  const result = await backend.run(direct, [spec]);
  const ms = monotonicClock() - t0;
  for (const buffer of result.outputs) backend.free(buffer);
  return ms;
}

/** One awaited engine.run of the add on wasm, its outputs disposed; ms. */
async function engineCall(): Promise<number> {
  const t0 = monotonicClock();
  const outputs = await engine.run({ op: 'add', a: engineA, b: engineB }, { strategy: { only: which } });
  const ms = monotonicClock() - t0;
  for (const tensor of outputs) tensor.dispose();
  return ms;
}

for (let i = 0; i < CALLS_PER_ROUND; i++) {
  await directCall();
  await engineCall();
}
const directMedians: number[] = [];
const engineMedians: number[] = [];
for (let round = 0; round < rounds; round++) {
  const d: number[] = [];
  const e: number[] = [];
  for (let i = 0; i < CALLS_PER_ROUND; i++) {
    d.push(await directCall());
    e.push(await engineCall());
  }
  directMedians.push(sampleStats(d).median);
  engineMedians.push(sampleStats(e).median);
}
const directUs = sampleStats(directMedians).median * 1000;
const engineUs = sampleStats(engineMedians).median * 1000;
console.log(
  `add f32[${elements}] on ${which}, ${rounds} rounds x ${CALLS_PER_ROUND} calls interleaved: direct backend.run median ` +
    `${directUs.toFixed(2)} us, engine {only:'${which}'} ${engineUs.toFixed(2)} us, engine/direct ${(engineUs / directUs).toFixed(2)}x`,
);
await engine.dispose();
