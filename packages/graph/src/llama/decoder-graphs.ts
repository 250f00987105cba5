// The graph of one decoder step (see buildDecoderStepGraph); the KV cache stays on the backends as engine tensors and
// grows inside it.
import type { Clock, Engine, Tensor } from '@tandem/core';
import type { Graph } from '../graph.ts';
import { GraphBuilder } from '../graph-builder.ts';
import type { SymbolicTensor } from '../symbolic.ts';
import { headDimOf, type DecoderConfig } from './config.ts';
import type { DecoderWeights, ProjectionWeights } from './weights.ts';

/** A block's weights as engine tensors (resident wherever the scheduler first moves them, across runs). */
export interface DecoderTensors {
  /** RMSNorm gain before attention. */
  readonly attnNorm: Tensor;
  /** RMSNorm gain before the MLP. */
  readonly ffnNorm: Tensor;
  /** Query projection. */
  readonly wq: Tensor;
  /** Key projection. */
  readonly wk: Tensor;
  /** Value projection. */
  readonly wv: Tensor;
  /** Output projection. */
  readonly wo: Tensor;
  /** MLP gate. */
  readonly wGate: Tensor;
  /** MLP up. */
  readonly wUp: Tensor;
  /** MLP down. */
  readonly wDown: Tensor;
}

/** Uploads host weights as engine tensors (f32 as [in, out], quantized as ggml blocks [out, in]). */
export function decoderTensors(engine: Engine, weights: DecoderWeights): DecoderTensors {
  const projection = (p: ProjectionWeights): Tensor =>
    p.dtype === 'f32'
      ? engine.tensor(p.values, [p.inFeatures, p.outFeatures])
      : engine.tensor(p.blocks, [p.outFeatures, p.inFeatures], p.dtype);
  return {
    attnNorm: engine.tensor(weights.attnNorm, [weights.config.dim]),
    ffnNorm: engine.tensor(weights.ffnNorm, [weights.config.dim]),
    wq: projection(weights.wq),
    wk: projection(weights.wk),
    wv: projection(weights.wv),
    wo: projection(weights.wo),
    wGate: projection(weights.wGate),
    wUp: projection(weights.wUp),
    wDown: projection(weights.wDown),
  };
}

/** What the step graphs need to know. */
export interface DecoderGraphContext {
  /** Engine the graphs run on. */
  readonly engine: Engine;
  /** Sizes. */
  readonly config: DecoderConfig;
  /** Weights. */
  readonly tensors: DecoderTensors;
  /** Node name prefix, e.g. 'layer0'. */
  readonly prefix: string;
  /** Clock for reports. */
  readonly clock: Clock | undefined;
}

/** x W^T with the op the weight's dtype calls for. */
function project(g: GraphBuilder, name: string, x: SymbolicTensor, w: SymbolicTensor): SymbolicTensor {
  return w.dtype === 'f32' ? g.matmul(name, x, w) : g.quantizedMatmul(name, x, w);
}

function builder(ctx: DecoderGraphContext, name: string): GraphBuilder {
  return new GraphBuilder(ctx.engine, ctx.clock === undefined ? { name } : { name, clock: ctx.clock });
}

/**
 * One decoder step as one graph, so that its placement is planned and measured whole (two graphs had each been
 * measured alone: the first's time left out where its outputs were left, and the pair settled on splits slower than
 * either backend alone). x [seq, dim] at positions [past, past + seq) -> 'out' [seq, dim], and the cache rows:
 *   x -> attn_norm -> q/k/v projections -> (views to heads) -> rope(q), rope(k)
 *     -> [concat(K cache, k), concat(V cache, v) => the grown cache] -> attention(q, K, V) -> o_proj
 *     -> + x -> ffn_norm -> gate, up -> swiglu -> down -> + h                                    => out, k, v
 * With `past` > 0 cached tokens it takes the cache (carried inputs k_cache / v_cache [past, kvHeads, hd]), appends the
 * new rows with concat nodes (placed like any node, so the cache grows where attention reads it) and outputs the
 * grown cache as 'k' and 'v'; with past = 0 'k' and 'v' are the new rows, which the caller keeps as the cache.
 */
export function buildDecoderStepGraph(ctx: DecoderGraphContext, seq: number, past: number): Graph {
  const g = builder(ctx, `${ctx.prefix}.step[seq ${seq}, kv ${past + seq}]`);
  const x = g.input('x', 'f32', [seq, ctx.config.dim]);
  const cacheShape = [past, ctx.config.kvHeads, headDimOf(ctx.config)];
  const cache =
    past > 0
      ? {
          k: g.input('k_cache', 'f32', cacheShape, { carried: true }),
          v: g.input('v_cache', 'f32', cacheShape, { carried: true }),
        }
      : undefined;
  const layer = addDecoderLayer(g, ctx.config, ctx.tensors, ctx.prefix, x, past, cache);
  g.output('k', layer.k);
  g.output('v', layer.v);
  g.output('out', layer.out);
  return g.build();
}

/** What one layer adds to a graph. */
export interface DecoderLayerNodes {
  /** The layer's output [seq, dim]. */
  readonly out: SymbolicTensor;
  /** The keys attention read: the cache grown by this step's rows (or those rows with no cache). */
  readonly k: SymbolicTensor;
  /** The values attention read, likewise. */
  readonly v: SymbolicTensor;
  /** This step's key rows alone [seq, kvHeads, hd] (roped). */
  readonly kNew: SymbolicTensor;
  /** This step's value rows alone. */
  readonly vNew: SymbolicTensor;
}

/** One decoder layer on x [seq, dim] at positions [past, past + seq), reading `cache` (past rows) when given. */
export function addDecoderLayer(
  g: GraphBuilder,
  config: DecoderConfig,
  tensors: DecoderTensors,
  p: string,
  x: SymbolicTensor,
  past: number,
  cache: { readonly k: SymbolicTensor; readonly v: SymbolicTensor } | undefined,
): DecoderLayerNodes {
  const hd = headDimOf(config);
  const seq = x.shape[0] ?? 1;
  const normed = g.rmsNorm(`${p}.attn_norm`, x, g.constant(`${p}.attn_norm.weight`, tensors.attnNorm), config.eps);
  const rope = { positionOffset: past, base: config.ropeBase, mode: config.ropeMode };
  const qProj = project(g, `${p}.attn.q_proj`, normed, g.constant(`${p}.attn.q_proj.weight`, tensors.wq));
  const kProj = project(g, `${p}.attn.k_proj`, normed, g.constant(`${p}.attn.k_proj.weight`, tensors.wk));
  const vProj = project(g, `${p}.attn.v_proj`, normed, g.constant(`${p}.attn.v_proj.weight`, tensors.wv));
  const q = g.rope(`${p}.attn.q_rope`, g.reshape(qProj, [seq, config.heads, hd], `${p}.attn.q_heads`), rope);
  const kNew = g.rope(`${p}.attn.k_rope`, g.reshape(kProj, [seq, config.kvHeads, hd], `${p}.attn.k_heads`), rope);
  const vNew = g.reshape(vProj, [seq, config.kvHeads, hd], `${p}.attn.v_heads`);
  const k = cache === undefined ? kNew : g.concat(`${p}.attn.k_cache_append`, cache.k, kNew);
  const v = cache === undefined ? vNew : g.concat(`${p}.attn.v_cache_append`, cache.v, vNew);
  const attended = g.attention(`${p}.attn.attention`, q, k, v, { causal: true });
  const o = project(
    g,
    `${p}.attn.o_proj`,
    g.reshape(attended, [seq, config.dim], `${p}.attn.merge_heads`),
    g.constant(`${p}.attn.o_proj.weight`, tensors.wo),
  );
  const h = g.add(`${p}.attn.residual`, x, o);
  const n = g.rmsNorm(`${p}.ffn_norm`, h, g.constant(`${p}.ffn_norm.weight`, tensors.ffnNorm), config.eps);
  const gate = project(g, `${p}.ffn.gate_proj`, n, g.constant(`${p}.ffn.gate_proj.weight`, tensors.wGate));
  const up = project(g, `${p}.ffn.up_proj`, n, g.constant(`${p}.ffn.up_proj.weight`, tensors.wUp));
  const down = project(
    g,
    `${p}.ffn.down_proj`,
    g.swiglu(`${p}.ffn.swiglu`, gate, up),
    g.constant(`${p}.ffn.down_proj.weight`, tensors.wDown),
  );
  return { out: g.add(`${p}.ffn.residual`, h, down), k, v, kNew, vNew };
}
