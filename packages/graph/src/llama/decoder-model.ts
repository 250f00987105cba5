// A whole decoder model's step as one graph: N layers, the final norm and the output projection (issue 28: a 7B
// model's decode at native speed). One graph, so that a settled plan replays as one call into the backend (a HIP graph
// of every layer's kernels on the ROCm backend).
import type { Clock, Engine, Tensor } from '@tandem/core';
import type { Graph } from '../graph.ts';
import { GraphBuilder } from '../graph-builder.ts';
import { headDimOf, type DecoderConfig } from './config.ts';
import { addDecoderLayer, type DecoderTensors } from './decoder-graphs.ts';

/** The model's weights as engine tensors. */
export interface DecoderModelTensors {
  /** Each layer's weights, in order. */
  readonly layers: readonly DecoderTensors[];
  /** RMSNorm gain after the last layer, [dim]. */
  readonly norm: Tensor;
  /** Output projection (dim -> vocab): quantized [vocab, dim], or f32 [dim, vocab]. */
  readonly output: Tensor;
}

/**
 * One decode step of the model as a graph: x [seq, dim] (embedded tokens) at positions [past, past + seq) ->
 * 'logits' [seq, vocab]. With `past` > 0 each layer i reads its cache as carried inputs `layer<i>.k_cache` /
 * `layer<i>.v_cache` [past, kvHeads, hd]; each layer's new rows come out as `layer<i>.k` / `layer<i>.v`
 * [seq, kvHeads, hd], for the caller's cache (the grown cache stays inside the step).
 */
export function buildDecoderModelGraph(
  engine: Engine,
  config: DecoderConfig,
  tensors: DecoderModelTensors,
  seq: number,
  past: number,
  clock?: Clock,
): Graph {
  const name = `${config.name} x${tensors.layers.length}.step[seq ${seq}, kv ${past + seq}]`;
  const g = new GraphBuilder(engine, clock === undefined ? { name } : { name, clock });
  let x = g.input('x', 'f32', [seq, config.dim]);
  const cacheShape = [past, config.kvHeads, headDimOf(config)];
  for (const [i, layer] of tensors.layers.entries()) {
    const p = `layer${i}`;
    const cache =
      past > 0
        ? {
            k: g.input(`${p}.k_cache`, 'f32', cacheShape, { carried: true }),
            v: g.input(`${p}.v_cache`, 'f32', cacheShape, { carried: true }),
          }
        : undefined;
    const nodes = addDecoderLayer(g, config, layer, p, x, past, cache);
    g.output(`${p}.k`, nodes.kNew);
    g.output(`${p}.v`, nodes.vNew);
    x = nodes.out;
  }
  const normed = g.rmsNorm('norm', x, g.constant('norm.weight', tensors.norm), config.eps);
  const head = g.constant('output.weight', tensors.output);
  g.output(
    'logits',
    head.dtype === 'f32' ? g.matmul('output', normed, head) : g.quantizedMatmul('output', normed, head),
  );
  return g.build();
}
