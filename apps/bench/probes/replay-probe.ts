// Graph replay (issue 28) on one decoder step (KV 512, one token), three ways interleaved in rounds (medians): the
// graph executor node by node (`replay: false`: every node through engine.run), the executor replaying its recorded
// plan (the default once the plan settles: engine.runSequence), and the same kernels called straight on the backend
// in the plan's order with nothing else (inputs and weights bound once, intermediates freed after their last
// reader): the floor of a replay written in JS. Both replays' outputs are checked bit for bit against node by node.
// On rocm the replay is one call into the addon (runSequence): a captured HIP graph, except the runs where the engine
// asks for each step's time (one in TIME_STEPS_EVERY), launched step by step with events. It is also timed with
// every run launched step by step; the device times and the weights' streaming limit are printed beside.
// PROBE_SEQUENCE_INLINE=1 runs every sequence on the JS thread, =0 never (default: the backend's limits).
//   node -C @tandem/source --import tsx apps/bench/probes/replay-probe.ts [tiny|7b] [wasm|rocm|webgpu] [rounds]
// (webgpu: one command buffer per replay; PROBE_SWIFTSHADER=1 runs it on SwiftShader, e.g. here)
import {
  Engine,
  mapOpTensors,
  sampleStats,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type TensorSpec,
} from '@tandem/core';
import {
  buildDecoderStepGraph,
  createDecoderWeights,
  DecoderBlock,
  LLAMA_7B_DECODER,
  randomActivations,
  TINY_DECODER,
  type ExecutionPlan,
  type SymbolicTensor,
} from '@tandem/graph';
import { DEFAULT_INLINE_LIMITS, RocmBackend } from '@tandem/rocm';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';

const size = process.argv[2] === '7b' ? '7b' : 'tiny';
const which = process.argv[3] === 'rocm' || process.argv[3] === 'webgpu' ? process.argv[3] : 'wasm';
const rounds = Number(process.argv[4] ?? 40);
const PER_ROUND = 10;

const wasm = new WasmBackend({ threads: 'auto' });
const inlineChoice = process.env['PROBE_SEQUENCE_INLINE'];
const rocm = new RocmBackend(
  inlineChoice === undefined
    ? {}
    : { inline: { ...DEFAULT_INLINE_LIMITS, sequenceMs: inlineChoice === '1' ? Number.POSITIVE_INFINITY : 0 } },
);
/** How the engine's sequence runs are made: as the engine asks, or every one with an event per step (launched one by one). */
let stepEvents: 'engine' | 'always' = 'engine';
/** Device time of the last sequence run, ms. */
let lastKernelMs = Number.NaN;
/** Sequence runs made as a captured graph, and in all. */
const graphRuns = { graph: 0, all: 0, captures: 0 };
if (which === 'webgpu' && process.env['PROBE_SWIFTSHADER'] === '1') {
  const software = useSwiftShader();
  if (!software.ok) throw new Error(software.reason);
}
const gpu: CapableBackend = which === 'webgpu' ? createNodeWebGpuBackend() : rocm;
const prepare = gpu.prepareSequence?.bind(gpu);
if (prepare === undefined) throw new Error(`${gpu.name} prepares no sequences`);
gpu.prepareSequence = (sequence) => {
  const prepared = prepare(sequence);
  return {
    run: async (inputs, timeSteps) => {
      const result = await prepared.run(inputs, timeSteps || stepEvents === 'always');
      lastKernelMs = result.kernelMs;
      graphRuns.all++;
      if (result.graph === true) graphRuns.graph++;
      graphRuns.captures = Math.max(graphRuns.captures, result.captures ?? 0);
      return result;
    },
  };
};
const backends: CapableBackend[] = which === 'wasm' ? [wasm] : [gpu, wasm];
const first = backends[0];
if (first === undefined) throw new Error('no backend');
const backend: CapableBackend = first;
const engine = await Engine.create({ backends });
const config = { ...(size === '7b' ? LLAMA_7B_DECODER : TINY_DECODER), weightType: 'q4_0' as const };
const block = DecoderBlock.create(engine, createDecoderWeights(config, 1));
const cache = block.newCache(513);
const cpuOnly = { strategy: 'cpu-only' as const, cpuBackend: 'wasm', gpuBackend: backend.name };
(await block.forward(randomActivations(config, 512, 4), cache, cpuOnly)).outputs.dispose();
const cached = cache.tensors();
if (cached === undefined) throw new Error('empty cache');
const held = cached;

const graph = buildDecoderStepGraph(Reflect.get(block, 'context'), 1, 512);
const parts: {
  plan: ExecutionPlan;
  inputs: ReadonlyMap<string, SymbolicTensor>;
  outputs: ReadonlyMap<string, SymbolicTensor>;
} = Reflect.get(graph, 'parts');
const options = {
  strategy: which === 'wasm' ? ('cpu-only' as const) : ('gpu-only' as const),
  cpuBackend: 'wasm',
  gpuBackend: backend.name,
};
const x = randomActivations(config, 1, 3);

/** The bytes of `data`, copied. */
function bytesOf(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
}

/** One executor run (node by node, or replayed once settled); its 'out' as bytes, every output disposed; ms. */
async function executorRun(replay = false): Promise<{ ms: number; out: Uint8Array; state: string }> {
  const t0 = performance.now();
  const run = await graph.run({ x, k_cache: held.k, v_cache: held.v }, { ...options, replay });
  const out = await run.outputs.get('out').read();
  const ms = performance.now() - t0;
  for (const name of ['out', 'k', 'v']) run.outputs.get(name).dispose();
  return { ms, out: bytesOf(out), state: run.report.replay?.state ?? '' };
}

/** A symbolic tensor's storage-owning value. */
function rootOf(t: SymbolicTensor): SymbolicTensor {
  let root = t;
  while (root.source.kind === 'view') {
    if (root.source.step.kind !== 'reshape') throw new Error(`${t.name}: only reshape views replay here`);
    root = root.source.base;
  }
  return root;
}

// Warm the executor (weights and the cache become resident on the backend), then bind what stays.
for (let i = 0; i < 5; i++) await executorRun();
const fixed = new Map<number, DeviceBuffer>(); // root id -> buffer the replay does not own
for (const node of parts.plan.steps)
  mapOpTensors(node.op, (t) => {
    const root = rootOf(t);
    if (root.source.kind === 'constant') {
      const buffer = root.source.tensor.storage.replicas.get(backend.name);
      if (buffer === undefined || !root.source.tensor.isContiguous) throw new Error(`${root.name} is not resident`);
      fixed.set(root.id, buffer);
    }
    return t;
  });
for (const [name, tensor] of [
  ['k_cache', held.k],
  ['v_cache', held.v],
] as const) {
  const sym = parts.inputs.get(name);
  const buffer = tensor.storage.replicas.get(backend.name);
  if (sym === undefined || buffer === undefined) throw new Error(`${name} is not resident`);
  fixed.set(sym.id, buffer);
}
const xSym = parts.inputs.get('x');
const outSym = parts.outputs.get('out');
if (xSym === undefined || outSym === undefined) throw new Error('x or out missing');
const xId = xSym.id;
const xSpec: TensorSpec = { dtype: 'f32', shape: xSym.shape };
const outRoot = outSym.root;
const outputIds = new Set([...parts.outputs.values()].map((s) => s.root));

/** A value's buffer in this replay. */
function bufferOf(values: ReadonlyMap<number, DeviceBuffer>, id: number, what: string): DeviceBuffer {
  const buffer = values.get(id);
  if (buffer === undefined) throw new Error(`${what} has no buffer`);
  return buffer;
}

/** The replay: the plan's kernels on the backend, in order; 'out' read back; ms. */
async function replayRun(): Promise<{ ms: number; out: Uint8Array }> {
  const t0 = performance.now();
  const values = new Map<number, DeviceBuffer>(fixed);
  values.set(xId, await backend.upload(bytesOf(x), xSpec));
  const bound = (t: SymbolicTensor): BoundTensor => ({
    dtype: t.dtype,
    shape: t.shape,
    buffer: bufferOf(values, rootOf(t).id, t.name),
  });
  const plan = parts.plan;
  for (const [s, node] of plan.steps.entries()) {
    const result = await backend.run(
      mapOpTensors(node.op, bound),
      node.outputs.map((o) => ({ dtype: o.dtype, shape: o.shape })),
    );
    for (const [i, o] of node.outputs.entries()) {
      const buffer = result.outputs[i];
      if (buffer === undefined) throw new Error(`${node.name} returned too few outputs`);
      values.set(o.id, buffer);
    }
    for (const id of plan.releaseAfter[s] ?? []) {
      const buffer = values.get(id);
      if (buffer !== undefined && !fixed.has(id) && !outputIds.has(id)) backend.free(buffer);
    }
  }
  const out = await backend.download(bufferOf(values, outRoot, 'out'));
  const ms = performance.now() - t0;
  for (const id of outputIds) backend.free(bufferOf(values, id, 'an output'));
  return { ms, out };
}

const reference = (await executorRun()).out;
const same = (bytes: Uint8Array): boolean =>
  bytes.length === reference.length && bytes.every((b, i) => b === reference[i]);
let replayedState = '';
for (let i = 0; i < 4; i++) replayedState = (await executorRun(true)).state; // settles, records, replays
const directSame = same((await replayRun()).out);
const replayedSame = same((await executorRun(true)).out);
const nodeByNode: number[] = [];
/** Timed replays whose output differed from node by node's. */
let differing = 0;
const replayed: number[] = [];
const replayedTimed: number[] = [];
const kernelSums: number[] = [];
const kernelSumsTimed: number[] = [];
const direct: number[] = [];
const freeBefore = which === 'rocm' ? rocm.availableMemory() : undefined;
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < PER_ROUND; i++) nodeByNode.push((await executorRun()).ms);
  for (let i = 0; i < PER_ROUND; i++) {
    const run = await executorRun(true);
    replayed.push(run.ms);
    kernelSums.push(lastKernelMs);
    if (!same(run.out)) differing++;
  }
  stepEvents = 'always';
  for (let i = 0; i < PER_ROUND; i++) {
    replayedTimed.push((await executorRun(true)).ms);
    kernelSumsTimed.push(lastKernelMs);
  }
  stepEvents = 'engine';
  for (let i = 0; i < PER_ROUND; i++) direct.push((await replayRun()).ms);
}
const freeAfter = which === 'rocm' ? rocm.availableMemory() : undefined;
const median = (ms: readonly number[]): number => sampleStats(ms).median ?? Number.NaN;
const [n, e, u, d, k, kt] = [
  median(nodeByNode),
  median(replayed),
  median(replayedTimed),
  median(direct),
  median(kernelSums),
  median(kernelSumsTimed),
];
const ratio = (a = Number.NaN, b = Number.NaN): string => `${(a / b).toFixed(2)}x`;
let weightBytes = 0;
for (const root of new Set(fixed.keys())) weightBytes += fixed.get(root)?.byteLength ?? 0;
const profile = backend.describe().performance;
const limitMs = profile === undefined ? Number.NaN : weightBytes / profile.bytesPerMs;
console.log(
  `${size} q4_0 decode at KV 512 on ${backend.name} (${parts.plan.steps.length} nodes, ${rounds} x ${PER_ROUND} runs each, interleaved):\n` +
    `  node by node ${n.toFixed(3)} ms | replayed (state ${replayedState}) ${e.toFixed(3)} ms` +
    (which !== 'wasm' ? ` | replayed, every step launched with an event ${u.toFixed(3)} ms` : '') +
    ` | kernels straight on the backend ${d.toFixed(3)} ms\n` +
    `  node-by-node/replayed ${ratio(n, e)}, replayed/straight ${ratio(e, d)}` +
    (which !== 'wasm' ? `, step-launched/replayed ${ratio(u, e)}` : '') +
    `\n  outputs bit-identical to node by node: replayed ${replayedSame} (timed replays differing: ${differing}), straight ${directSame}\n` +
    (which !== 'wasm'
      ? `  device time of the replayed sequence ${k.toFixed(3)} ms (${graphRuns.graph} of ${graphRuns.all} runs a captured graph, ${graphRuns.captures} captures), ` +
        `${kt.toFixed(3)} ms launched step by step; weights, cache and input bound ${(weightBytes / 1e6).toFixed(1)} MB, ` +
        `${limitMs.toFixed(3)} ms at the profile's ${((profile?.bytesPerMs ?? 0) / 1e9).toFixed(2)} TB/s\n` +
        `  free device memory before / after the timed rounds: ${freeBefore} / ${freeAfter} bytes\n`
      : ''),
);
if (which !== 'wasm') {
  // Each step's device time in the replays (medians), the largest first.
  const byLabel = new Map<string, number[]>();
  for (const event of engine.telemetry.opEvents())
    if (event.reason.kind === 'replay' && event.kernelMs !== undefined)
      byLabel.set(event.label ?? event.op, [...(byLabel.get(event.label ?? event.op) ?? []), event.kernelMs]);
  const steps = [...byLabel].map(([label, ms]) => [label, median(ms)] as const).sort((a, b) => b[1] - a[1]);
  console.log(`  step device times (ms): ${steps.map(([l, ms]) => `${l} ${ms.toFixed(4)}`).join(', ')}`);
}
graph.dispose();
cache.dispose();
block.dispose();
await engine.dispose();
