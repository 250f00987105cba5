// Diagnostic (GPU machine, or here with a software GPU): the graph suite's mixed run (tiny Q4_0 block: one prefill,
// then 32 decode steps) under several strategies, rounds alternating their order, the first round not counted.
// Prints, per strategy: median total, prefill (with its read-back), the sum and median of the decode steps, the
// worst step, plans made and their planning time, how runs chose their plan, and where the decode nodes ran
// (nodes off the CPU named with their step, t0 = the first decode after the prefill).
//   node -C @tandem/source --import tsx apps/bench/scripts/graph-mixed-probe.ts [prompt] [rounds]     (default 128 6)
//   PROBE_STRATEGIES=cpu-only,gpu-only,auto (the default); PROBE_STEPS=1: also each decode step's median
// H100 host, 2026-11-23, prompt 512, before carried inputs: cpu-only 96.3 ms, gpu-only 78.8, auto 97.3 (its decode
// steps split between wasm and rocm around the KV cache the GPU prefill left on rocm).
import { DecoderBlock, createDecoderWeights, randomActivations, TINY_DECODER, type GraphStrategy } from '@tandem/graph';
import { graphBench } from '../src/graph/setup.ts';
import { numberArg, parseCommandLine } from '../src/command-line.ts';

const [promptText = '128', roundsText = '6'] = parseCommandLine({ command: 'node -C @tandem/source --import tsx apps/bench/scripts/graph-mixed-probe.ts [options] [prompt] [rounds]', summary: "The graph suite's mixed run under several strategies.", positionals: ['prompt: prompt tokens (default 128)', 'rounds: (default 6); PROBE_STRATEGIES, PROBE_STEPS as above'] }, {}).positionals;
const prompt = numberArg('prompt', promptText, 128, 1, 1_000_000);
const rounds = numberArg('rounds', roundsText, 6, 2, 1_000_000);
const decodeSteps = 32;
const strategies: GraphStrategy[] = (process.env['PROBE_STRATEGIES'] ?? 'cpu-only,gpu-only,auto').split(',').map((s): GraphStrategy => (s === 'cpu-only' || s === 'gpu-only' ? s : 'auto'));

// The graph suite's engine and backend choice; `true`: TANDEM_WEBGPU as set (unset on the GPU machine, swiftshader here).
const { engine, preference } = await graphBench(true);
const { cpuBackend } = preference;
const block = DecoderBlock.create(engine, createDecoderWeights({ ...TINY_DECODER, weightType: 'q4_0' }, 1));

/** What the counted rounds of one strategy measured. */
interface Tally {
  readonly totals: number[];
  readonly prefills: number[];
  readonly decodeSums: number[];
  readonly decodeMedians: number[];
  readonly worstSteps: number[];
  /** Per decode step index, its times over the counted rounds. */
  readonly byStep: number[][];
  plans: number;
  planningMs: number;
  readonly chosenBy: Map<string, number>;
  readonly nodes: Map<string, number>;
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;
const count = (map: Map<string, number>, key: string): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};
const tallies = new Map<string, Tally>();
function newTally(): Tally {
  return { totals: [], prefills: [], decodeSums: [], decodeMedians: [], worstSteps: [], byStep: [], plans: 0, planningMs: 0, chosenBy: new Map(), nodes: new Map() };
}

for (let round = 0; round <= rounds; round++) {
  for (const strategy of round % 2 === 0 ? strategies : [...strategies].reverse()) {
    const name = String(strategy);
    const tally = tallies.get(name) ?? newTally();
    tallies.set(name, tally);
    const counted = round > 0;
    const cache = block.newCache(prompt + decodeSteps);
    const t0 = performance.now();
    let step = await block.forward(randomActivations(block.config, prompt, 5), cache, { ...preference, strategy });
    await step.output.read();
    const prefillMs = performance.now() - t0;
    const steps: number[] = [];
    for (let t = 0; t < decodeSteps; t++) {
      const s0 = performance.now();
      const next = await block.forward(randomActivations(block.config, 1, 6 + t), cache, { ...preference, strategy });
      await next.output.read();
      steps.push(performance.now() - s0);
      step.output.dispose();
      step = next;
      if (!counted) continue;
      (tally.byStep[t] ??= []).push(steps[t] ?? NaN);
      const placement = next.report.placement;
      if (placement !== undefined) {
        if (!placement.reused) tally.plans++;
        tally.planningMs += placement.planningMs;
        count(tally.chosenBy, placement.chosenBy);
      }
      for (const n of next.report.nodes) count(tally.nodes, n.backend === cpuBackend ? `${n.backend} ${n.reasonKind}` : `${n.backend} ${n.reasonKind} ${n.name} t${t}`);
    }
    step.output.dispose();
    cache.dispose();
    if (!counted) continue;
    tally.totals.push(performance.now() - t0);
    tally.prefills.push(prefillMs);
    tally.decodeSums.push(steps.reduce((a, b) => a + b, 0));
    tally.decodeMedians.push(median(steps));
    tally.worstSteps.push(Math.max(...steps));
  }
}
for (const [name, t] of tallies) {
  console.log(
    `${name}: total ${median(t.totals).toFixed(1)} ms, prefill ${median(t.prefills).toFixed(2)}, decode sum ${median(t.decodeSums).toFixed(2)} ` +
      `(step median ${median(t.decodeMedians).toFixed(3)}, worst ${median(t.worstSteps).toFixed(2)}), plans made ${t.plans} (${t.planningMs.toFixed(1)} ms), ` +
      `chosenBy ${[...t.chosenBy].map(([k, n]) => `${k} ${n}`).join(', ') || '-'}; decode nodes: ${[...t.nodes].map(([k, n]) => `${k}: ${n}`).join('; ')}`,
  );
  if (process.env['PROBE_STEPS'] === '1') console.log(`${name} per decode step, median ms: ${t.byStep.map((list) => median(list).toFixed(2)).join(' ')}`);
}
block.dispose();
await engine.dispose();
