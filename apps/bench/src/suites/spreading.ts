// Spreading suite: spreading activation over WordNet on the wasm backend, per hop, from one seed and from a batch of
// 32 seeds (initial [32, nodes]), on 1 and 2 threads, against one call per seed on one thread (how the CPU ran a
// batch before batches and threads: one call per seed, one thread). Per hop = (T(11 hops) - T(1 hop)) / 10, which
// removes the upload of the seeds and the call's own overhead; the runs of each case alternate, median of REPS.
import { Engine, monotonicClock, sampleStats, type Tensor } from '@tandem/core';
import { findSynsets, loadWordNet, type WordNetGraph } from '@tandem/datasets';
import { WasmBackend } from '@tandem/wasm';
import type { Row, SuiteResult } from '../report.ts';

/** 32 words whose synsets seed one vector each (the first seeds the single-seed case). */
const SEED_WORDS = [
  'dog',
  'music',
  'money',
  'run',
  'happy',
  'tree',
  'water',
  'house',
  'car',
  'book',
  'light',
  'war',
  'food',
  'city',
  'law',
  'heart',
  'game',
  'ship',
  'sound',
  'color',
  'school',
  'power',
  'art',
  'fire',
  'king',
  'road',
  'bird',
  'glass',
  'stone',
  'time',
  'child',
  'sea',
];
const DECAY = 0.8;
const THRESHOLD = 0.01;
const REPS = 9;

/** The graph resident on the engine and one seed vector per word. */
interface Setup {
  readonly engine: Engine;
  readonly graph: { readonly rowPtr: Tensor<'u32'>; readonly colIdx: Tensor<'u32'>; readonly weights: Tensor<'f32'> };
  readonly seeds: readonly Float32Array[];
}

async function setUp(wordnet: WordNetGraph, threads: number): Promise<Setup> {
  const engine = await Engine.create({ backends: [new WasmBackend({ threads })] });
  const status = engine.backends()[0];
  if (status?.available !== true)
    throw new Error(`wasm with ${threads} threads did not start: ${status?.unavailableReason}`);
  const graph = {
    rowPtr: engine.tensor(Uint32Array.from(wordnet.rowPtr), [wordnet.rowPtr.length]),
    colIdx: engine.tensor(Uint32Array.from(wordnet.colIdx), [wordnet.colIdx.length]),
    weights: engine.tensor(wordnet.weights, [wordnet.weights.length]),
  };
  const nodes = wordnet.synsetIds.length;
  const seeds = SEED_WORDS.map((word) => {
    const seed = new Float32Array(nodes);
    for (const node of findSynsets(wordnet, word)) seed[node] = 1;
    return seed;
  });
  return { engine, graph, seeds };
}

/** ms of one call spreading `seeds` (one vector, or a batch of them) for `hops`, the result read back. */
async function timeCall(s: Setup, seeds: readonly Float32Array[], hops: number): Promise<number> {
  const nodes = seeds[0]?.length ?? 0;
  const data = new Float32Array(seeds.length * nodes);
  seeds.forEach((seed, i) => {
    data.set(seed, i * nodes);
  });
  const t0 = monotonicClock();
  const initial = s.engine.tensor(data, seeds.length === 1 ? [nodes] : [seeds.length, nodes]);
  const out = await s.engine.spreadActivation(s.graph, initial, {
    decay: DECAY,
    threshold: THRESHOLD,
    iterations: hops,
  });
  await out.read();
  const ms = monotonicClock() - t0;
  initial.dispose();
  out.dispose();
  return ms;
}

/** ms per hop of a way of spreading (one batch call, or one call per seed), from alternating 1- and 11-hop runs. */
async function perHop(
  run: (hops: number) => Promise<number>,
): Promise<{ msPerHop: number; ms1: number; ms11: number }> {
  await run(11); // warm-up
  const one: number[] = [];
  const eleven: number[] = [];
  for (let r = 0; r < REPS; r++) {
    one.push(await run(1));
    eleven.push(await run(11));
  }
  const ms1 = sampleStats(one).median;
  const ms11 = sampleStats(eleven).median;
  return { msPerHop: Math.max(0, (ms11 - ms1) / 10), ms1, ms11 };
}

/** Runs the spreading suite. */
export default async function spreadingSuite(): Promise<SuiteResult> {
  const wordnet = await loadWordNet();
  const nodes = wordnet.synsetIds.length;
  const edges = wordnet.colIdx.length;
  const rows: Row[] = [];
  const results = new Map<string, number>();
  for (const threads of [1, 2]) {
    const s = await setUp(wordnet, threads);
    const cases: Array<{ way: string; seeds: number; run: (hops: number) => Promise<number> }> = [
      { way: 'one seed', seeds: 1, run: (hops) => timeCall(s, s.seeds.slice(0, 1), hops) },
      { way: 'batch of 32, one call', seeds: 32, run: (hops) => timeCall(s, s.seeds, hops) },
    ];
    if (threads === 1) {
      cases.push({
        way: 'batch of 32, one call per seed',
        seeds: 32,
        run: async (hops) => {
          let ms = 0;
          for (const seed of s.seeds) ms += await timeCall(s, [seed], hops);
          return ms;
        },
      });
    }
    for (const c of cases) {
      const timing = await perHop(c.run);
      results.set(`${c.way}|${threads}`, timing.msPerHop);
      console.log(
        `  wasm ${threads} thread(s), ${c.way}: ${timing.msPerHop.toFixed(3)} ms per hop (1 hop ${timing.ms1.toFixed(3)} ms, 11 hops ${timing.ms11.toFixed(3)} ms)`,
      );
      rows.push({
        threads,
        way: c.way,
        seeds: c.seeds,
        nodes,
        edges,
        msPerHop: timing.msPerHop,
        msPerHopPerSeed: timing.msPerHop / c.seeds,
        ms1Hop: timing.ms1,
        ms11Hops: timing.ms11,
      });
    }
    await s.engine.dispose();
  }
  const at = (way: string, threads: number): number => results.get(`${way}|${threads}`) ?? Number.NaN;
  const today = at('one seed', 1);
  const todayBatch = at('batch of 32, one call per seed', 1);
  const verdicts = [
    `WordNet: ${nodes} synsets, ${edges} edges; decay ${DECAY}, threshold ${THRESHOLD}; per hop, median of ${REPS} runs`,
    `one seed: 1 thread ${today.toFixed(3)} ms, 2 threads ${at('one seed', 2).toFixed(3)} ms per hop (${(today / at('one seed', 2)).toFixed(2)}x)`,
    `32 seeds: one call per seed on 1 thread ${todayBatch.toFixed(3)} ms; one batch call on 1 thread ${at('batch of 32, one call', 1).toFixed(3)} ms ` +
      `(${(todayBatch / at('batch of 32, one call', 1)).toFixed(2)}x), on 2 threads ${at('batch of 32, one call', 2).toFixed(3)} ms (${(todayBatch / at('batch of 32, one call', 2)).toFixed(2)}x) per hop`,
  ];
  return { suite: 'spreading', rows, verdicts };
}
