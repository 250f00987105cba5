// The whole-model step graph (buildDecoderModelGraph) on the reference backend: its logits are exactly those of the
// one-layer step graphs run one after another, then the final norm and the output projection as engine calls; each
// layer's new key and value rows are the last rows of that layer's grown cache. Random-block weights (the benchmark's).
import { describe, expect, it } from 'vitest';
import type { Tensor } from '@tandem/core';
import { referenceEngine } from '../test-support/engines.ts';
import { TINY_DECODER } from './config.ts';
import { buildDecoderStepGraph, decoderTensors } from './decoder-graphs.ts';
import { buildDecoderModelGraph } from './decoder-model.ts';
import { createRandomBlockWeights, randomActivations, randomOutputProjection } from './weights.ts';

const CONFIG = { ...TINY_DECODER, weightType: 'q4_0' as const };
const LAYERS = 2;
const PAST = 3;
const VOCAB = 64;

async function floats(t: Tensor): Promise<Float32Array> {
  const bytes = await t.read();
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

describe('buildDecoderModelGraph', () => {
  it('gives the logits of its layers run one by one, then the norm and the output projection', async () => {
    const engine = await referenceEngine();
    const layers = Array.from({ length: LAYERS }, (_, i) =>
      decoderTensors(engine, createRandomBlockWeights(CONFIG, i + 1)),
    );
    const head = randomOutputProjection(CONFIG, VOCAB, 9);
    if (head.dtype === 'f32') throw new Error('quantized head expected');
    const output = engine.tensor(head.blocks, [VOCAB, CONFIG.dim], head.dtype);
    const norm = engine.tensor(randomActivations(CONFIG, 1, 5), [CONFIG.dim]);
    const hd = CONFIG.dim / CONFIG.heads;
    const caches = layers.map((_, i) => ({
      k: engine.tensor(randomActivations({ ...CONFIG, dim: CONFIG.kvHeads * hd }, PAST, 20 + i), [
        PAST,
        CONFIG.kvHeads,
        hd,
      ]),
      v: engine.tensor(randomActivations({ ...CONFIG, dim: CONFIG.kvHeads * hd }, PAST, 40 + i), [
        PAST,
        CONFIG.kvHeads,
        hd,
      ]),
    }));
    const x = randomActivations(CONFIG, 1, 3);

    const model = buildDecoderModelGraph(engine, CONFIG, { layers, norm, output }, 1, PAST);
    const inputs: Record<string, Float32Array | Tensor> = { x };
    caches.forEach((c, i) => {
      inputs[`layer${i}.k_cache`] = c.k;
      inputs[`layer${i}.v_cache`] = c.v;
    });
    const whole = await model.run(inputs, { strategy: 'cpu-only' });

    let h: Float32Array | Tensor = x;
    for (const [i, tensors] of layers.entries()) {
      const step = buildDecoderStepGraph(
        { engine, config: CONFIG, tensors, prefix: `layer${i}`, clock: undefined },
        1,
        PAST,
      );
      const cache = caches[i];
      if (cache === undefined) throw new Error('no cache');
      const run = await step.run({ x: h, k_cache: cache.k, v_cache: cache.v }, { strategy: 'cpu-only' });
      const grownK = await floats(run.outputs.get('k'));
      const rowFloats = CONFIG.kvHeads * hd;
      expect(await floats(whole.outputs.get(`layer${i}.k`))).toEqual(grownK.slice(PAST * rowFloats));
      const grownV = await floats(run.outputs.get('v'));
      expect(await floats(whole.outputs.get(`layer${i}.v`))).toEqual(grownV.slice(PAST * rowFloats));
      h = run.outputs.get('out');
    }
    if (h instanceof Float32Array || !h.hasDType('f32')) throw new Error('no f32 layer output');
    const logits = await engine.quantizedMatmul(await engine.rmsNorm(h, { weight: norm, eps: CONFIG.eps }), output);
    expect(await floats(whole.outputs.get('logits'))).toEqual(await floats(logits));
    expect(whole.outputs.get('logits').shape).toEqual([1, VOCAB]);
    await engine.dispose();
  });
});
