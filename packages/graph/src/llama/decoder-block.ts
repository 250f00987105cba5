// A Llama-style decoder block on the graph executor: prefill (many tokens) and decode (one token) against a KV cache.
// Graphs are built per (tokens, position) and cached: a repeated shape reuses its graph; each decode step's new
// cache length builds two new graphs (validation of ~15 nodes, well under a millisecond).
import { InvalidArgumentError, monotonicClock, Tensor, type Clock, type Engine } from '@tandem/core';
import type { Graph, RunOptions } from '../graph.ts';
import { combineReports, type RunReport } from '../report.ts';
import { checkConfig, headDimOf, type DecoderConfig } from './config.ts';
import { buildAttentionInputGraph, buildAttentionOutputGraph, decoderTensors, type DecoderGraphContext, type DecoderTensors } from './decoder-graphs.ts';
import { KvCache } from './kv-cache.ts';
import type { DecoderWeights } from './weights.ts';

/** Options of DecoderBlock.create. */
export interface DecoderBlockOptions {
  /** Node name prefix (default 'layer0'). */
  readonly prefix?: string;
  /** Clock for reports (default performance.now). */
  readonly clock?: Clock;
  /** Built graphs kept per kind (default 8; least recently used are dropped). */
  readonly graphCacheSize?: number;
}

/** One forward step's result. */
export interface DecoderStep {
  /** The block's output [tokens, dim]; the caller owns it. */
  readonly output: Tensor;
  /** Both graphs' nodes (the KV-cache append is the second graph's concat nodes), as one report. */
  readonly report: RunReport;
}

/** One decoder layer: weights on the engine, graphs per shape, a KV cache per sequence (newCache()). */
export class DecoderBlock {
  /** Sizes. */
  readonly config: DecoderConfig;
  /** Node name prefix. */
  readonly prefix: string;
  /** The weights as engine tensors (the block disposes them). */
  readonly tensors: DecoderTensors;
  private readonly engine: Engine;
  private readonly clock: Clock;
  private readonly context: DecoderGraphContext;
  private readonly graphs = new Map<string, Graph>();
  private readonly graphCacheSize: number;

  private constructor(engine: Engine, weights: DecoderWeights, options: DecoderBlockOptions) {
    checkConfig(weights.config);
    this.engine = engine;
    this.config = weights.config;
    this.prefix = options.prefix ?? 'layer0';
    this.clock = options.clock ?? monotonicClock;
    this.graphCacheSize = options.graphCacheSize ?? 8;
    this.tensors = decoderTensors(engine, weights);
    this.context = { engine, config: this.config, tensors: this.tensors, prefix: this.prefix, clock: options.clock };
  }

  /** A block over `weights` (uploaded to the engine once; they stay resident across runs). */
  static create(engine: Engine, weights: DecoderWeights, options: DecoderBlockOptions = {}): DecoderBlock {
    return new DecoderBlock(engine, weights, options);
  }

  /** An empty KV cache for up to `capacity` tokens. */
  newCache(capacity: number): KvCache {
    return new KvCache(this.config.kvHeads, headDimOf(this.config), capacity);
  }

  /** Runs `x` [tokens, dim] at positions [cache.length, cache.length + tokens) and appends its keys and values to the cache. */
  async forward(x: Tensor | Float32Array, cache: KvCache, options: RunOptions = {}): Promise<DecoderStep> {
    const started = this.clock();
    const { dim } = this.config;
    const tokens = x instanceof Tensor ? (x.shape[0] ?? 0) : x.length / dim;
    if (x instanceof Tensor ? x.shape.length !== 2 || x.shape[1] !== dim : !Number.isInteger(tokens)) {
      throw new InvalidArgumentError(`${this.prefix}.forward.x`, x instanceof Tensor ? [...x.shape] : `${x.length} values`, `must be [tokens, ${dim}]`);
    }
    if (tokens < 1) throw new InvalidArgumentError(`${this.prefix}.forward.x`, tokens, 'must hold at least one token');
    const position = cache.length;
    if (position + tokens > cache.capacity) {
      throw new InvalidArgumentError(`${this.prefix}.forward.x`, tokens, `tokens would exceed the KV cache's capacity (${cache.capacity} tokens, ${position} held)`);
    }
    const input = x instanceof Tensor ? x : this.engine.tensor(x, [tokens, dim]);
    const owned: Tensor[] = x instanceof Tensor ? [] : [input];
    try {
      const first = await this.graph(`in|${tokens}|${position}`, () => buildAttentionInputGraph(this.context, tokens, position)).run({ x: input }, options);
      const [q, k, v] = [first.outputs.get('q'), first.outputs.get('k'), first.outputs.get('v')];
      owned.push(q, k, v);
      const held = cache.tensors();
      // The cache grows inside the second graph (concat nodes beside attention): k and v never come back to the host.
      const inputs = held === undefined ? { x: input, q, k_new: k, v_new: v } : { x: input, q, k_new: k, v_new: v, k_cache: held.k, v_cache: held.v };
      const second = await this.graph(`out|${tokens}|${position}`, () => buildAttentionOutputGraph(this.context, tokens, position)).run(inputs, options);
      if (held === undefined) {
        owned.splice(owned.indexOf(k), 2); // k and v become the cache
        cache.adopt(k, v);
      } else {
        const appendBytes = second.report.nodes.filter((n) => n.op === 'concat').reduce((s, n) => s + n.bytesMoved, 0);
        cache.adopt(second.outputs.get('k'), second.outputs.get('v'), appendBytes);
      }
      const report = combineReports(`${this.prefix} ${tokens} token(s) @ ${position}`, [first.report, second.report], {
        hostMs: 0,
        bytesMoved: 0,
        totalMs: this.clock() - started,
      });
      return { output: second.outputs.get('out'), report };
    } finally {
      for (const t of owned) t.dispose();
    }
  }

  /** Frees the weights and the cached graphs. */
  dispose(): void {
    for (const g of this.graphs.values()) g.dispose();
    this.graphs.clear();
    for (const t of Object.values(this.tensors)) t.dispose();
  }

  /** A cached graph, built on first use; the least recently used is dropped past the cache size. */
  private graph(key: string, build: () => Graph): Graph {
    let g = this.graphs.get(key);
    if (g !== undefined) {
      this.graphs.delete(key);
    } else {
      g = build();
      const kind = key.split('|')[0];
      const sameKind = [...this.graphs.keys()].filter((k) => k.split('|')[0] === kind);
      if (sameKind.length >= this.graphCacheSize && sameKind[0] !== undefined) {
        this.graphs.get(sameKind[0])?.dispose();
        this.graphs.delete(sameKind[0]);
      }
    }
    this.graphs.set(key, g);
    return g;
  }
}
