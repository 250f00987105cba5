// Placement of the tiny decoder block (Q4_0 weights) on simulated backends whose true latencies are the engine's
// roofline priors (ManualClock: simulated time is exact and repeatable). Checks what the strategies decide, in
// simulated milliseconds and bytes moved: 'auto' is never slower than the greedy engine per op ('per-op') or the
// fixed ggml-style rule ('split': matmuls and attention on the GPU), and a decode step does not bounce between
// backends. Outputs are zeros (a simulated backend computes nothing): numerics are decoder-block.test.ts's job.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILES, Engine, rooflineMs } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import type { RunReport } from '../report.ts';
import type { GraphStrategy } from '../strategy.ts';
import { TINY_DECODER } from './config.ts';
import { DecoderBlock } from './decoder-block.ts';
import { createDecoderWeights, randomActivations } from './weights.ts';

const CONFIG = { ...TINY_DECODER, weightType: 'q4_0' as const };
const WEIGHTS = createDecoderWeights(CONFIG, 7);
const PREFILL = 64;

/** Three rounds of (prefill 64 tokens, decode 3) under `strategy` on a fresh simulated CPU + GPU; the last round's reports. */
async function lastRound(strategy: GraphStrategy): Promise<{ prefill: RunReport; decode: RunReport }> {
  const clock = new ManualClock();
  const cpuProfile = DEFAULT_PROFILES.cpu;
  const gpuProfile = DEFAULT_PROFILES.gpu;
  const cpu = new SimulatedBackend({
    name: 'cpu',
    kind: 'cpu',
    clock,
    performance: cpuProfile,
    latencyMs: (_op, w) => rooflineMs(w, cpuProfile),
  });
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    clock,
    performance: gpuProfile,
    transferBytesPerMs: gpuProfile.transferBytesPerMs,
    latencyMs: (_op, w) => rooflineMs(w, gpuProfile),
  });
  const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
  const block = DecoderBlock.create(engine, WEIGHTS, { clock: clock.clock });
  let result: { prefill: RunReport; decode: RunReport } | undefined;
  for (let round = 0; round < 3; round++) {
    const cache = block.newCache(PREFILL + 3);
    const prefill = await block.forward(randomActivations(CONFIG, PREFILL, 1), cache, { strategy });
    prefill.outputs.dispose();
    let decode = prefill;
    for (let t = 0; t < 3; t++) {
      decode = await block.forward(randomActivations(CONFIG, 1, 2 + t), cache, { strategy });
      decode.outputs.dispose();
    }
    cache.dispose();
    result = { prefill: prefill.report, decode: decode.report };
  }
  block.dispose();
  await engine.dispose();
  if (result === undefined) throw new Error('no round ran');
  return result;
}

describe('decoder block placement on simulated backends', async () => {
  const [auto, perOp, split] = await Promise.all([lastRound('auto'), lastRound('per-op'), lastRound('split')]);

  it("prefill: 'auto' is no slower than per-op or split, and its plan never estimates worse than greedy", () => {
    expect(auto.prefill.totalMs).toBeLessThanOrEqual(perOp.prefill.totalMs + 1e-9);
    expect(auto.prefill.totalMs).toBeLessThan(split.prefill.totalMs);
    const placement = auto.prefill.placement;
    expect(placement).toBeDefined();
    expect(placement?.estimatedMs ?? Infinity).toBeLessThanOrEqual(placement?.greedyMs ?? 0);
    // The matmul-heavy MLP runs as one GPU segment: gate, up, swiglu and down.
    const mlp = auto.prefill.nodes.filter((n) => /ffn\.(gate_proj|up_proj|swiglu|down_proj)$/.test(n.name));
    expect(mlp.map((n) => n.backend)).toEqual(['gpu', 'gpu', 'gpu', 'gpu']);
  });

  it("decode: 'auto' keeps the step on one backend, moves fewer bytes than split and no KV-cache prefix", () => {
    expect(auto.decode.backendSwitches).toBe(0);
    expect(split.decode.backendSwitches).toBe(8);
    expect(auto.decode.totalMs).toBeLessThanOrEqual(perOp.decode.totalMs + 1e-9);
    expect(auto.decode.totalMs).toBeLessThan(split.decode.totalMs / 4);
    expect(auto.decode.bytesMoved).toBeLessThan(split.decode.bytesMoved);
    // The KV cache grows where it lives (concat nodes beside attention): a decode step moves no cache prefix.
    const cacheNodes = auto.decode.nodes.filter((n) => n.op === 'concat' || n.op === 'attention');
    expect(cacheNodes.map((n) => n.op)).toEqual(['concat', 'concat', 'attention']);
    expect(cacheNodes.map((n) => n.bytesMoved)).toEqual([0, 0, 0]);
    expect(auto.decode.bytesMoved).toBe(CONFIG.dim * 4); // the token's activations, uploaded once
  });
});
