// The tiny decoder block (dim 288, 6 heads, hidden 768) on the graph executor against the float64 reference
// step (referenceDecoderStep): a prefill of 6 tokens, then 2 decode steps appending to the KV cache, for f32,
// Q8_0 and Q4_0 weights, on every engine available here and each strategy that engine can run. A step whose nodes all
// ran on one backend moves only x there: the KV cache grows on that backend (concat), its prefix never moves.
// Tolerances, element by element over the block output and the cached keys and values:
//   reference backend: exact (the same kernels, f32 between ops in both);
//   wasm and WebGPU: |got - want| <= 4e-6 (|want| + rms(want)) (f32 accumulation in another order; the worst element
//   seen uses 1.3e-6 of (|want| + rms)). Quantized weights are
//   expanded exactly by every backend and the activations stay f32 (no Q8 re-quantization of x as in ggml's CPU
//   path), so Q8_0 / Q4_0 runs are held to the same bound against a reference that uses the same Q8_0 / Q4_0 weights.
// The 7B layer is checked against the reference in the benchmark only (one 7B reference step takes minutes here).
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { Engine, Tensor } from '@tandem/core';
import type { GraphRun } from '../graph.ts';
import type { GraphStrategy } from '../strategy.ts';
import { hybridEngine, referenceEngine, wasmEngine, type TestEngine } from '../test-support/engines.ts';
import { TINY_DECODER, type WeightType } from './config.ts';
import { DecoderBlock } from './decoder-block.ts';
import { referenceDecoderStep } from './reference-block.ts';
import { createDecoderWeights, randomActivations, type DecoderWeights } from './weights.ts';

/** Per element: |got - want| <= TOLERANCE * (|want| + rms(want)) on wasm and WebGPU (worst seen: 1.3e-6). */
const TOLERANCE = 4e-6;
const PREFILL_TOKENS = 6;
const DECODE_STEPS = 2;
const WEIGHT_TYPES: readonly WeightType[] = ['f32', 'q8_0', 'q4_0'];

/**
 * The worst element of `got` against `want`, as the multiple of the tolerance it uses: |g - w| / (TOL * (|w| + rms(want))),
 * element by element (<= 1 passes). The rms term covers elements near zero, whose error comes from the f32 sums that
 * produced them (terms of the output's typical size), not from their own size.
 */
function worstElement(got: Float32Array, want: Float32Array, tol: number): number {
  expect(got.length).toBe(want.length);
  let squares = 0;
  for (const w of want) squares += w * w;
  const rms = Math.sqrt(squares / Math.max(1, want.length));
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? 0;
    const g = got[i] ?? Number.NaN;
    const used = Math.abs(g - w) / (tol * (Math.abs(w) + rms));
    worst = Number.isNaN(used) ? Infinity : Math.max(worst, used);
  }
  return worst;
}

const weightsByType = new Map<WeightType, DecoderWeights>(
  WEIGHT_TYPES.map((t) => [t, createDecoderWeights({ ...TINY_DECODER, weightType: t }, 7)]),
);

/** Prefill then decode on `engine` under `strategy`; returns the largest relative error seen and the last report's backends. */
async function prefillAndDecode(
  engine: Engine,
  weightType: WeightType,
  strategy: GraphStrategy,
  tol: number,
): Promise<{ error: number; backends: Set<string> }> {
  const weights = weightsByType.get(weightType);
  if (weights === undefined) throw new Error(`no weights for ${weightType}`);
  const block = DecoderBlock.create(engine, weights);
  const cache = block.newCache(PREFILL_TOKENS + DECODE_STEPS);
  let past: { keys: Float32Array; values: Float32Array } = { keys: new Float32Array(0), values: new Float32Array(0) };
  let error = 0;
  const backends = new Set<string>();
  try {
    for (let step = 0; step <= DECODE_STEPS; step++) {
      const tokens = step === 0 ? PREFILL_TOKENS : 1;
      const x = randomActivations(weights.config, tokens, 100 + step);
      const want = referenceDecoderStep(weights, x, past);
      const got = await block.forward(x, cache, { strategy });
      const out = await got.outputs.get('out').read();
      got.outputs.dispose();
      expect(got.report.leakedTensors).toBe(0);
      expect(cache.length).toBe(PREFILL_TOKENS + step);
      const stepBackends = new Set(got.report.nodes.map((n) => n.backend));
      if (step > 0 && stepBackends.size === 1) {
        // A decode step with every op on one backend (the weights already there): only x crosses to it (telemetry's
        // bytes moved); the cache grew in place.
        expect(got.report.bytesMoved).toBe(tokens * weights.config.dim * 4);
        expect(cache.bytesCopied).toBe(0);
      }
      for (const n of stepBackends) backends.add(n);
      const held = await cache.read();
      error = Math.max(
        error,
        worstElement(out, want.out, tol),
        worstElement(held.k, want.keys, tol),
        worstElement(held.v, want.values, tol),
      );
      past = { keys: want.keys, values: want.values };
    }
  } finally {
    cache.dispose();
    block.dispose();
  }
  return { error, backends };
}

describe('tiny decoder block vs the reference step', () => {
  it.each(WEIGHT_TYPES)('reference backend, %s weights: prefill + decode exactly', async (weightType) => {
    const engine = await referenceEngine();
    const { error, backends } = await prefillAndDecode(engine, weightType, 'auto', 1);
    expect(error).toBe(0);
    expect([...backends]).toEqual(['reference']);
    await engine.dispose();
  });

  describe('wasm', async () => {
    const made: TestEngine = await wasmEngine();
    afterAll(async () => {
      if (made.ok) await made.engine.dispose();
    });
    const cases = WEIGHT_TYPES.flatMap((w) => (['cpu-only', 'auto'] as const).map((s) => [w, s] as const));
    it.skipIf(!made.ok).each(cases)(
      '%s weights, %s: every element within tolerance, every node on wasm',
      async (weightType, strategy) => {
        if (!made.ok) throw new Error(made.reason);
        const { error, backends } = await prefillAndDecode(made.engine, weightType, strategy, TOLERANCE);
        expect(error).toBeLessThanOrEqual(1);
        expect([...backends]).toEqual(['wasm']);
      },
    );
  });

  describe('wasm + WebGPU (SwiftShader)', async () => {
    const made: TestEngine = await hybridEngine();
    afterAll(async () => {
      if (made.ok) await made.engine.dispose();
    });
    const cases = WEIGHT_TYPES.flatMap((w) => (['gpu-only', 'auto'] as const).map((s) => [w, s] as const));
    it.skipIf(!made.ok).each(cases)('%s weights, %s: every element within tolerance', async (weightType, strategy) => {
      if (!made.ok) throw new Error(made.reason);
      const { error, backends } = await prefillAndDecode(made.engine, weightType, strategy, TOLERANCE);
      expect(error).toBeLessThanOrEqual(1);
      if (strategy === 'gpu-only') expect([...backends]).toEqual(['webgpu']);
      // SwiftShader's prior (0.5 GFLOP/s, 0.5 ms per launch) and its measurements put every node on wasm.
      if (strategy === 'auto' && process.env['TANDEM_TEST_GPU'] !== 'native') expect([...backends]).toEqual(['wasm']);
    });
  });
});

describe('DecoderBlock.forward', () => {
  it("resolves like a graph's run(): { outputs, report }, its output named 'out' and typed f32", async () => {
    const engine = await referenceEngine();
    const block = DecoderBlock.create(engine, weightsByType.get('f32') ?? createDecoderWeights(TINY_DECODER, 7));
    const cache = block.newCache(4);
    const step = await block.forward(randomActivations(TINY_DECODER, 2, 1), cache);
    expectTypeOf(step).toExtend<GraphRun>();
    expect(step.outputs.names()).toEqual(['out']);
    const out = step.outputs.get('out');
    expectTypeOf(out).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await out.read()).toEqualTypeOf<Float32Array>();
    expect(out.shape).toEqual([2, TINY_DECODER.dim]);
    expect(step.report.nodes.length).toBe(15);
    // @ts-expect-error: a name the step does not have is a compile error, and at run time an InvalidArgumentError
    expect(() => step.outputs.get('output')).toThrow(
      /outputs\.get\.name = "output": is not an output \(outputs: out\)/,
    );
    step.outputs.dispose();
    expect(out.disposed).toBe(true);
    block.dispose();
    cache.dispose();
    await engine.dispose();
  });
});
