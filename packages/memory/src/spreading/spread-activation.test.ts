// spreadActivation on the engine: hand-computed hops, multiple sources, threshold, decay, chained ops past the
// op's 1000-hop limit, bad input, and on each backend under test (wasm, WebGPU) the activations of @tandem/reference's
// kernel (random graphs and a real WordNet slice; never this function's own output on another engine). Tolerance:
// each node within 1e-5 relative of the kernel's value, unreached nodes exactly 0 (the reference sums each hop in
// float64, wasm in f32 in edge order, WebGPU in f32 atomics in any order; measured worst case 3.4e-6 relative after
// 5 hops on 20,000 WordNet nouns).
import { Engine, InvalidArgumentError } from '@tandem/core';
import { findSynsets, loadWordNet } from '@tandem/datasets';
import { ReferenceBackend, spreadActivation as referenceSpread } from '@tandem/reference';
import { WasmBackend } from '@tandem/wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '@tandem/core';
import { singleBackendEngines } from '../vectors/testing/backends.ts';
import { started } from '../../../../test/support/backends.ts';
import { CsrGraph, type WeightedEdge } from './csr-graph.ts';
import { spreadActivation, type ActivationSource } from './spread-activation.ts';

const engines = await singleBackendEngines();
/** The function under test on the reference backend: for its own behaviour (hops by hand, input checks, chaining). */
const reference = await Engine.create({ backends: [new ReferenceBackend()] });
afterAll(async () => {
  for (const { engine } of engines) await engine?.dispose();
  await reference.dispose();
});

/** The expected activations: @tandem/reference's kernel run for maxHops iterations from the sources (summed per node). */
function expected(
  graph: CsrGraph,
  sources: readonly ActivationSource[],
  decay: number,
  threshold: number,
  maxHops: number,
): Float32Array {
  const initial = new Float32Array(graph.nodeCount);
  for (const { node, activation } of sources) initial[node] = (initial[node] ?? 0) + activation;
  return maxHops === 0 ? initial : referenceSpread(graph, initial, { decay, threshold, iterations: maxHops });
}

// 0 -> 1 (0.5), 0 -> 2 (1), 1 -> 2 (2); node 2 has no out-edges.
const small = CsrGraph.fromEdges(3, [
  { from: 0, to: 1, weight: 0.5 },
  { from: 0, to: 2, weight: 1 },
  { from: 1, to: 2, weight: 2 },
]);

/** Expects every node within 1e-5 relative of `want`, and exactly 0 where `want` is 0. */
function expectCloseToReference(got: Float32Array, want: Float32Array, what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? 0;
    const g = got[i] ?? Number.NaN;
    if (w === 0) expect(g, `${what} node ${i}`).toBe(0);
    else expect(Math.abs(g - w), `${what} node ${i}: ${g} vs ${w}`).toBeLessThanOrEqual(1e-5 * Math.abs(w));
  }
}

/** Throws unless no node's activation after any hop before the last lies within 1e-4 relative of the threshold
 *  (there, f32 rounding could decide whether the node spreads, and backends could legitimately differ). */
function expectThresholdClear(
  graph: CsrGraph,
  sources: readonly ActivationSource[],
  decay: number,
  threshold: number,
  maxHops: number,
): void {
  for (let hops = 0; hops < maxHops; hops++) {
    const a = expected(graph, sources, decay, threshold, hops);
    const near = a.findIndex((v) => Math.abs(v - threshold) <= 1e-4 * Math.abs(threshold));
    expect(near, `node ${near} is at the threshold after ${hops} hops: pick another threshold`).toBe(-1);
  }
}

/** One and two hops of `small` by hand. */
async function expectHopsByHand(engine: Engine): Promise<void> {
  const options = { sources: [{ node: 0, activation: 1 }], decay: 0.5, threshold: 0.1 };
  // hop 1: node 1 = 0.5 * 0.5 = 0.25, node 2 = 0.5 * 1 = 0.5; hop 2: node 1 = 0.25 + 0.25, node 2 = 0.5 + 0.5 * (1 + 2 * 0.25)
  expect(Array.from(await spreadActivation(engine, small, { ...options, maxHops: 1 }))).toEqual([1, 0.25, 0.5]);
  expect(Array.from(await spreadActivation(engine, small, { ...options, maxHops: 2 }))).toEqual([1, 0.5, 1.25]);
}

describe('spreadActivation', () => {
  it('reference: one and two hops by hand', async () => {
    await expectHopsByHand(reference);
  });

  it('adds sources named twice, and nodes below the threshold do not spread', async () => {
    const sources = [
      { node: 0, activation: 1 },
      { node: 1, activation: 0.125 },
      { node: 1, activation: 0.125 },
    ];
    // initial [1, 0.25, 0]; threshold 0.3: node 1 is silent in hop 1 (0.25), spreads in hop 2 (0.25 + 0.25 = 0.5)
    // hop 1: [1, 0.5, 0.5]; hop 2: node 1 = 0.5 + 0.25 = 0.75, node 2 = 0.5 + 0.5 * (1 + 2 * 0.5) = 1.5
    const got = await spreadActivation(reference, small, { sources, decay: 0.5, threshold: 0.3, maxHops: 2 });
    expect(Array.from(got)).toEqual([1, 0.75, 1.5]);
  });

  it('returns the starting activation for 0 hops, no sources, or a graph without edges', async () => {
    const sources = [{ node: 2, activation: 0.75 }];
    expect(
      Array.from(await spreadActivation(reference, small, { sources, decay: 0.5, threshold: 0, maxHops: 0 })),
    ).toEqual([0, 0, 0.75]);
    expect(
      Array.from(await spreadActivation(reference, small, { sources: [], decay: 0.5, threshold: 0, maxHops: 3 })),
    ).toEqual([0, 0, 0]);
    expect(
      Array.from(
        await spreadActivation(reference, CsrGraph.fromEdges(3, []), { sources, decay: 0.5, threshold: 0, maxHops: 3 }),
      ),
    ).toEqual([0, 0, 0.75]);
  });

  it('chains ops past 1000 hops: 1500 hops equal the reference kernel run for 1500 iterations', async () => {
    const cycle = CsrGraph.fromEdges(2, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 0, weight: 1 },
    ]);
    const options = { sources: [{ node: 0, activation: 1 }], decay: 0.001, threshold: 0 };
    const got = await spreadActivation(reference, cycle, { ...options, maxHops: 1500 });
    const want = referenceSpread(cycle, Float32Array.of(1, 0), { decay: 0.001, threshold: 0, iterations: 1500 });
    expect(Array.from(got)).toEqual(Array.from(want));
    const after1000 = await spreadActivation(reference, cycle, { ...options, maxHops: 1000 });
    expect(got[0]).toBeGreaterThan((after1000[0] ?? 0) * 1.5);
  });

  it('reuses the graph tensors on an engine until released', async () => {
    const graph = CsrGraph.fromEdges(2, [{ from: 0, to: 1, weight: 1 }]);
    const first = graph.tensorsOn(reference);
    await spreadActivation(reference, graph, {
      sources: [{ node: 0, activation: 1 }],
      decay: 1,
      threshold: 0,
      maxHops: 1,
    });
    expect(graph.tensorsOn(reference)).toBe(first);
    graph.release(reference);
    expect(first.colIdx.disposed).toBe(true);
    expect(
      Array.from(
        await spreadActivation(reference, graph, {
          sources: [{ node: 0, activation: 1 }],
          decay: 1,
          threshold: 0,
          maxHops: 1,
        }),
      ),
    ).toEqual([1, 1]);
  });

  it('runs on the backend a strategy names', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend(), new WasmBackend()] });
    await spreadActivation(engine, small, {
      sources: [{ node: 0, activation: 1 }],
      decay: 0.5,
      threshold: 0,
      maxHops: 2,
      strategy: { only: 'wasm' },
    });
    const spreads = engine.telemetry.opEvents().filter((e) => e.op === 'spreadActivation');
    expect(spreads.map((e) => [e.backend, e.label])).toEqual([['wasm', 'memory.spread']]);
    await engine.dispose();
  });

  it.each([
    ['decay 0', { decay: 0 }, /decay = 0: must be in \(0, 1\]/],
    ['decay above 1', { decay: 1.5 }, /decay = 1.5/],
    ['a NaN threshold', { threshold: Number.NaN }, /threshold = NaN: must be finite/],
    ['negative hops', { maxHops: -1 }, /maxHops = -1/],
    ['fractional hops', { maxHops: 1.5 }, /maxHops = 1.5/],
    [
      'a source outside the graph',
      { sources: [{ node: 3, activation: 1 }] },
      /sources\[0\]\.node = 3: must be a node in \[0, 2\]/,
    ],
    [
      'a NaN activation',
      {
        sources: [
          { node: 0, activation: 1 },
          { node: 1, activation: Number.NaN },
        ],
      },
      /sources\[1\]\.activation = NaN/,
    ],
  ] as const)('rejects %s with InvalidArgumentError', async (_name, change, message) => {
    const options = { sources: [{ node: 0, activation: 1 }], decay: 0.5, threshold: 0, maxHops: 2, ...change };
    await expect(spreadActivation(reference, small, options)).rejects.toThrow(InvalidArgumentError);
    await expect(spreadActivation(reference, small, options)).rejects.toThrow(message);
  });
});

for (const { name, engine: maybe } of engines) {
  describe.skipIf(maybe === undefined)(`spreadActivation on ${name} gives @tandem/reference's activations`, () => {
    it('one and two hops by hand', async () => {
      await expectHopsByHand(started(name, maybe));
    });

    it.each([[1], [3], [6]])('random graph of 400 nodes and 3,000 edges, %i hops', async (hops) => {
      const rng = createRng(hops + 40);
      const edges: WeightedEdge[] = Array.from({ length: 3000 }, () => ({
        from: rng.int(0, 400),
        to: rng.int(0, 400),
        weight: 0.05 + rng.next(),
      }));
      const graph = CsrGraph.fromEdges(400, edges);
      const sources = [
        { node: 3, activation: 1 },
        { node: 250, activation: 0.5 },
      ];
      const options = { sources, decay: 0.3, threshold: 0.0123, maxHops: hops };
      expectThresholdClear(graph, sources, options.decay, options.threshold, hops);
      const want = expected(graph, sources, options.decay, options.threshold, hops);
      expect(want.filter((a) => a !== 0).length).toBeGreaterThan(hops === 1 ? 5 : 100);
      expectCloseToReference(await spreadActivation(started(name, maybe), graph, options), want, `${hops} hops`);
    });

    it('WordNet, first 20,000 noun synsets: spreading from "dog" for 4 hops', async () => {
      const wordnet = await loadWordNet({ pos: ['n'], limit: 20_000 });
      const graph = CsrGraph.fromCsr(wordnet.rowPtr, wordnet.colIdx, wordnet.weights);
      const dogs = findSynsets(wordnet, 'dog');
      expect(dogs.length).toBeGreaterThan(0);
      const sources = dogs.map((node) => ({ node, activation: 1 }));
      const options = { sources, decay: 0.6, threshold: 0.0123, maxHops: 4 };
      expectThresholdClear(graph, sources, options.decay, options.threshold, options.maxHops);
      const want = expected(graph, sources, options.decay, options.threshold, options.maxHops);
      // The dog synsets' hypernyms (e.g. canine, domestic animal) are reached and rank right after the sources.
      const ranked = Array.from(want.keys()).sort((a, b) => (want[b] ?? 0) - (want[a] ?? 0));
      const lemmasOf = (node: number): string[] => wordnet.lemmas[node] ?? [];
      expect(ranked.slice(0, 12).flatMap(lemmasOf)).toEqual(expect.arrayContaining(['dog', 'canine']));
      expectCloseToReference(await spreadActivation(started(name, maybe), graph, options), want, 'WordNet');
    });
  });
}
