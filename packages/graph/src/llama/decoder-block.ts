// A Llama-style decoder block on the graph executor: prefill (many tokens) and decode (one token) against a KV cache.
// A step's graph is built per (tokens, position) and cached: a repeated shape reuses its graph; each decode step's new
// cache length builds a new one (validation of ~17 nodes, well under a millisecond).
import { InvalidArgumentError, Tensor, type Clock, type Engine } from '@tandem/core';
import { GraphOutputs, type Graph, type GraphRun, type RunOptions } from '../graph.ts';
import { checkConfig, headDimOf, type DecoderConfig } from './config.ts';
import {
  buildDecoderStepGraph,
  decoderTensors,
  type DecoderGraphContext,
  type DecoderTensors,
} from './decoder-graphs.ts';
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

/**
 * One forward step's result, shaped like a graph run's: `outputs.get('out')` is the block's output [tokens, dim] f32
 * (the caller owns it: `outputs.dispose()`), `report` the step graph's run (the KV-cache append is its concat nodes).
 */
export type DecoderStep = GraphRun<{ readonly out: 'f32' }>;

/** One decoder layer: weights on the engine, graphs per shape, a KV cache per sequence (newCache()). */
export class DecoderBlock {
  /** Sizes. */
  readonly config: DecoderConfig;
  /** Node name prefix. */
  readonly prefix: string;
  /** The weights as engine tensors (the block disposes them). */
  readonly tensors: DecoderTensors;
  private readonly engine: Engine;
  private readonly context: DecoderGraphContext;
  private readonly graphs = new Map<string, Graph>();
  private readonly graphCacheSize: number;

  private constructor(engine: Engine, weights: DecoderWeights, options: DecoderBlockOptions) {
    checkConfig(weights.config);
    this.engine = engine;
    this.config = weights.config;
    this.prefix = options.prefix ?? 'layer0';
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

  /**
   * Runs `x` [tokens, dim] at positions [cache.length, cache.length + tokens) and appends its keys and values to the
   * cache. Resolves like a graph's run(): `{ outputs, report }`, the block's output being `outputs.get('out')`.
   */
  async forward(x: Tensor | Float32Array, cache: KvCache, options: RunOptions = {}): Promise<DecoderStep> {
    const { dim } = this.config;
    const tokens = x instanceof Tensor ? (x.shape[0] ?? 0) : x.length / dim;
    if (x instanceof Tensor ? x.shape.length !== 2 || x.shape[1] !== dim : !Number.isInteger(tokens)) {
      throw new InvalidArgumentError(
        `${this.prefix}.forward.x`,
        x instanceof Tensor ? [...x.shape] : `${x.length} values`,
        `must be [tokens, ${dim}]`,
      );
    }
    if (tokens < 1) throw new InvalidArgumentError(`${this.prefix}.forward.x`, tokens, 'must hold at least one token');
    const position = cache.length;
    if (position + tokens > cache.capacity) {
      throw new InvalidArgumentError(
        `${this.prefix}.forward.x`,
        tokens,
        `tokens would exceed the KV cache's capacity (${cache.capacity} tokens, ${position} held)`,
      );
    }
    const input = x instanceof Tensor ? x : this.engine.tensor(x, [tokens, dim]);
    try {
      const held = cache.tensors();
      const inputs = held === undefined ? { x: input } : { x: input, k_cache: held.k, v_cache: held.v };
      const step = await this.graph(`step|${tokens}|${position}`, () =>
        buildDecoderStepGraph(this.context, tokens, position),
      ).run(inputs, options);
      const [k, v] = [step.outputs.get('k'), step.outputs.get('v')];
      if (held === undefined) cache.adopt(k, v);
      else
        cache.adopt(
          k,
          v,
          step.report.nodes.filter((n) => n.op === 'concat').reduce((s, n) => s + n.bytesMoved, 0),
        );
      return {
        outputs: new GraphOutputs<{ readonly out: 'f32' }>(new Map([['out', step.outputs.get('out', 'f32')]])),
        report: step.report,
      };
    } finally {
      if (input !== x) input.dispose();
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
