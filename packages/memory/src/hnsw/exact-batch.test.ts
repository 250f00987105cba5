import { Engine } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { describe, expect, it } from 'vitest';
import { HnswIndex } from './index.ts';
import { cosineScores, topOf } from '../vectors/testing/brute-force.ts';

/** Deterministic pseudo-random vectors (count x dim). */
function vectors(count: number, dim: number, seed: number): Float32Array {
  const out = new Float32Array(count * dim);
  let s = seed;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

function exactTop(data: Float32Array, dim: number, query: Float32Array, k: number): number[] {
  return topOf(cosineScores(query, 0, data, dim), k).map((h) => h.index);
}

describe('HnswIndex.searchBatch exact route', () => {
  it('returns the exact top-k through the engine, seeing vectors inserted later', async () => {
    const engine = await Engine.create({ backends: [new WasmBackend()] });
    const dim = 24;
    const data = vectors(600, dim, 5);
    const index = await HnswIndex.build(data, dim, { M: 8, efConstruction: 40, engine });
    const queries = vectors(30, dim, 77);
    const exact = await index.searchBatch(queries, 5, { mode: 'exact' });
    for (let q = 0; q < 30; q++) {
      const query = queries.subarray(q * dim, (q + 1) * dim);
      expect(exact[q]?.map((h) => h.index)).toEqual(exactTop(data, dim, query, 5));
      const graph = index.search(query, 5, { ef: 100 });
      expect(exact[q]?.[0]?.score ?? 0).toBeCloseTo(graph[0]?.score ?? 0, 5);
    }
    const added = index.insert(queries.slice(0, dim));
    const again = await index.searchBatch(queries.subarray(0, dim), 1, { mode: 'exact' });
    expect(again[0]?.[0]?.index).toBe(added);
    expect(again[0]?.[0]?.score ?? 0).toBeCloseTo(1, 5);
    index.dispose();
    await engine.dispose();
  });

  it("'auto' stays on the graph when the engine has no GPU backend", async () => {
    const engine = await Engine.create({ backends: [new WasmBackend()] });
    const dim = 8;
    const index = await HnswIndex.build(vectors(300, dim, 9), dim, { M: 6, efConstruction: 30, engine });
    const queries = vectors(300, dim, 10);
    const auto = await index.searchBatch(queries, 3, { ef: 20 });
    const graph = await index.searchBatch(queries, 3, { ef: 20, mode: 'graph' });
    expect(auto).toEqual(graph);
    await engine.dispose();
  });

  it("'auto' stays on the graph when the only GPU is a software one (SwiftShader), and 'exact' then runs under auto", async () => {
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({
      name: 'gpu',
      kind: 'gpu',
      priority: 20,
      latencyMs: () => 1_000,
      clock,
      software: true,
      performance: { flopsPerMs: 1, bytesPerMs: 1, launchMs: 1_000, transferBytesPerMs: 1 },
    });
    const engine = await Engine.create({ backends: [new WasmBackend(), gpu] });
    expect(engine.backends().find((b) => b.name === 'gpu')?.software).toBe(true);
    const dim = 8;
    const index = await HnswIndex.build(vectors(300, dim, 9), dim, { M: 6, efConstruction: 30, engine });
    const queries = vectors(300, dim, 10);
    expect(await index.searchBatch(queries, 3, { ef: 20 })).toEqual(
      await index.searchBatch(queries, 3, { ef: 20, mode: 'graph' }),
    );
    expect(engine.telemetry.opEvents().filter((e) => e.label?.startsWith('memory.'))).toEqual([]);
    await index.searchBatch(queries.subarray(0, 40 * dim), 3, { mode: 'exact' });
    const ops = engine.telemetry.opEvents().filter((e) => e.label?.startsWith('memory.'));
    expect(ops.length).toBeGreaterThan(0);
    for (const e of ops) expect(e.backend).toBe('wasm');
    await engine.dispose();
  });

  it('asks for a GPU: its ops run on the GPU even when the cost model prices the CPU lower', async () => {
    // A simulated GPU (zero-filled results, so only placement is checked) priced far above the CPU.
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({
      name: 'gpu',
      kind: 'gpu',
      priority: 20,
      latencyMs: () => 1_000,
      clock,
      performance: { flopsPerMs: 1, bytesPerMs: 1, launchMs: 1_000, transferBytesPerMs: 1 },
    });
    const engine = await Engine.create({ backends: [new WasmBackend(), gpu] });
    const dim = 8;
    const index = await HnswIndex.build(vectors(300, dim, 3), dim, { M: 8, efConstruction: 40, engine });
    await index.searchBatch(vectors(40, dim, 9), 3, { mode: 'exact' });
    const ops = engine.telemetry.opEvents().filter((e) => e.label?.startsWith('memory.'));
    expect(ops.length).toBeGreaterThan(0);
    for (const e of ops) expect(e.backend).toBe('gpu');
    await engine.dispose();
  });
});
