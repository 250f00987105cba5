// A whole 7B-shape model's decode step (issue 28: "a 32-layer decode at least 200 tokens/s"): N layers of random
// Q4_0 weights at real shapes, the final norm and a 32,000-word output projection, as one graph
// (buildDecoderModelGraph) at KV 512, one token. Per strategy: runs until the plan replays, then timed runs (medians,
// tokens/s = 1000 / ms). Beside them: the device time of the replayed sequence (one HIP graph on rocm), and the
// weights' streaming limit at the backend profile's bandwidth. The replayed logits are checked bit for bit against a
// node-by-node run.
// PROBE_CONFIG=tiny takes the tiny layer's shapes instead (the engine's own cost per step, e.g. here on the emulated
// HIP build: TANDEM_ROCM_ADDON=$PWD/packages/rocm/build/emulated/tandem_rocm.node).
//   node -C @tandem/source --import tsx apps/bench/probes/model-probe.ts [layers] [runs] [gpu-only,auto,cpu-only]
import { Engine, sampleStats, type CapableBackend, type Tensor } from '@tandem/core';
import {
  buildDecoderModelGraph,
  createRandomBlockWeights,
  decoderTensors,
  LLAMA_7B_DECODER,
  TINY_DECODER,
  randomActivations,
  randomOutputProjection,
  type GraphStrategy,
} from '@tandem/graph';
import { RocmBackend } from '@tandem/rocm';
import { WasmBackend } from '@tandem/wasm';

const layers = Number(process.argv[2] ?? 32);
const runs = Number(process.argv[3] ?? 20);
const strategies = (process.argv[4] ?? 'gpu-only,auto').split(',');
const VOCAB = 32000;
const PAST = 512;

const rocm = new RocmBackend();
/** Device time of the last sequence run, ms, and whether it was a captured graph. */
const last = { kernelMs: Number.NaN, graph: false };
const prepare = rocm.prepareSequence.bind(rocm);
rocm.prepareSequence = (sequence) => {
  const prepared = prepare(sequence);
  return {
    run: async (inputs, timeSteps) => {
      const result = await prepared.run(inputs, timeSteps);
      last.kernelMs = result.kernelMs;
      last.graph = result.graph === true;
      return result;
    },
  };
};
const backends: CapableBackend[] = [rocm, new WasmBackend({ threads: 'auto' })];
const engine = await Engine.create({ backends });
const config = {
  ...(process.env['PROBE_CONFIG'] === 'tiny' ? TINY_DECODER : LLAMA_7B_DECODER),
  weightType: 'q4_0' as const,
};
const t0 = performance.now();
let weightBytes = 0;
const layerTensors = Array.from({ length: layers }, (_, i) => {
  const weights = createRandomBlockWeights(config, i + 1);
  for (const w of [weights.wq, weights.wk, weights.wv, weights.wo, weights.wGate, weights.wUp, weights.wDown])
    weightBytes += w.dtype === 'f32' ? w.values.byteLength : w.blocks.byteLength;
  return decoderTensors(engine, weights);
});
const head = randomOutputProjection(config, VOCAB, 999);
if (head.dtype === 'f32') throw new Error('the head is quantized');
weightBytes += head.blocks.byteLength;
const output = engine.tensor(head.blocks, [VOCAB, config.dim], head.dtype);
const norm = engine.tensor(new Float32Array(config.dim).fill(1), [config.dim]);
const graph = buildDecoderModelGraph(engine, config, { layers: layerTensors, norm, output }, 1, PAST);
const kvRow = config.kvHeads * (config.dim / config.heads);
const caches: Record<string, Tensor> = {};
for (let i = 0; i < layers; i++) {
  for (const kv of ['k', 'v']) {
    const values = randomActivations({ ...config, dim: kvRow }, PAST, 100 + 2 * i + (kv === 'k' ? 0 : 1));
    caches[`layer${i}.${kv}_cache`] = engine.tensor(values, [PAST, config.kvHeads, config.dim / config.heads]);
  }
}
const x = randomActivations(config, 1, 3);
console.log(
  `model: ${layers} layers of ${config.name} Q4_0 + output ${VOCAB}, ${(weightBytes / 2 ** 30).toFixed(2)} GiB of weights ` +
    `(made in ${((performance.now() - t0) / 1000).toFixed(1)} s), KV ${PAST}`,
);

/** One step: ms, logits bytes, the replay state and backend calls; every output disposed. */
async function step(strategy: GraphStrategy, replay = true) {
  const start = performance.now();
  const run = await graph.run({ x, ...caches }, { strategy, cpuBackend: 'wasm', gpuBackend: 'rocm', replay });
  const ran = performance.now();
  const logits = await run.outputs.get('logits').read();
  const ms = performance.now() - start;
  run.outputs.dispose();
  const report = run.report;
  return { ms, runMs: ran - start, logits, state: report.replay?.state ?? '', calls: report.replay?.backendCalls };
}

const bytesPerMs = rocm.describe().performance?.bytesPerMs ?? Number.NaN;
for (const name of strategies) {
  const strategy: GraphStrategy = name === 'cpu-only' ? 'cpu-only' : name === 'auto' ? 'auto' : 'gpu-only';
  const warm = performance.now();
  let state = '';
  let warmRuns = 0;
  while (state !== 'replayed' && warmRuns < 60) {
    state = (await step(strategy)).state;
    warmRuns++;
  }
  const warmS = (performance.now() - warm) / 1000;
  const reference = (await step(strategy, false)).logits;
  const ms: number[] = [];
  const runMs: number[] = [];
  const device: number[] = [];
  let identical = true;
  let graphs = 0;
  let calls: number | undefined;
  for (let i = 0; i < runs; i++) {
    const r = await step(strategy);
    ms.push(r.ms);
    runMs.push(r.runMs);
    calls = r.calls;
    if (r.state === 'replayed' && last.graph) {
      device.push(last.kernelMs);
      graphs++;
    }
    identical &&= r.logits.length === reference.length && r.logits.every((b, j) => b === reference[j]);
  }
  const median = sampleStats(ms).median ?? Number.NaN;
  const deviceMs = sampleStats(device).median ?? Number.NaN;
  const graphRunMs = sampleStats(runMs).median ?? Number.NaN;
  console.log(
    `${strategy}: ${median.toFixed(3)} ms per token = ${(1000 / median).toFixed(1)} tokens/s (median of ${runs}; ` +
      `${warmRuns} runs / ${warmS.toFixed(1)} s until ${state}, ${calls ?? '-'} backend call(s) per replay; graph.run alone ` +
      `${graphRunMs.toFixed(3)} ms, the rest reading the logits); ` +
      `device time of the replayed graph ${deviceMs.toFixed(3)} ms (${graphs} graph runs) = ${(1000 / deviceMs).toFixed(1)} tokens/s; ` +
      `weights at ${(bytesPerMs / 1e9).toFixed(2)} TB/s: ${(weightBytes / bytesPerMs).toFixed(3)} ms; logits bit-identical to node by node: ${identical}`,
  );
}
graph.dispose();
await engine.dispose();
