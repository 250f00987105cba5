// explain(): each field once (the estimates beside the reason, not inside it), and the memory a call needs on each
// backend that can take it: inputs not resident there yet, outputs and the kernel's scratch.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { ManualClock, SimulatedBackend } from '@tandem/testing';

describe('explain()', () => {
  it('gives the estimates once, beside a reason that does not repeat them', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const engine = await Engine.create({ backends: [cpu], clock: clock.clock });
    const x = engine.tensor(new Float32Array(4), [2, 2]);
    const e = engine.explain({ op: 'matmul', a: x, b: x });
    expect(e.selection.reason).toEqual({ kind: 'cost-model', measured: false });
    expect(Object.keys(e).sort()).toEqual([
      'costsMs',
      'fallbacks',
      'memory',
      'op',
      'probe',
      'selection',
      'skipped',
      'transfersMs',
      'work',
    ]);
    expect(e.costsMs['cpu']).toBe(e.selection.estimatedMs);
  });

  it('reports the memory needed per backend: inputs not resident, outputs, scratch, and what is free', async () => {
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({
      name: 'gpu',
      kind: 'gpu',
      clock,
      latencyMs: () => 1,
      availableMemoryBytes: 100_000,
    });
    const small = new SimulatedBackend({
      name: 'small',
      kind: 'gpu',
      clock,
      latencyMs: () => 1,
      availableMemoryBytes: 100,
    });
    const engine = await Engine.create({ backends: [new ReferenceBackend(), gpu, small], clock: clock.clock });
    const queries = engine.tensor(new Float32Array(2 * 4), [2, 4]); // 32 bytes
    const targets = engine.tensor(new Float32Array(10 * 4), [10, 4]); // 160 bytes
    const op = { op: 'cosineSimilarity', queries, targets } as const;
    const before = engine.explain(op);
    // The reference's cosine keeps 8 bytes per target as scratch (float64 norms); the output is [2, 10] f32.
    expect(before.memory['reference']).toEqual({
      inputBytes: 192,
      outputBytes: 80,
      scratchBytes: 80,
      totalBytes: 352,
      availableBytes: expect.any(Number),
    });
    expect(before.memory['gpu']).toEqual({
      inputBytes: 192,
      outputBytes: 80,
      scratchBytes: 0,
      totalBytes: 272,
      availableBytes: 100_000,
    });
    expect(before.memory['small']).toEqual({
      inputBytes: 192,
      outputBytes: 80,
      scratchBytes: 0,
      totalBytes: 272,
      availableBytes: 100,
    });
    expect(before.skipped).toContainEqual({ backend: 'small', reason: 'needs 272 bytes, 100 available' });
    // Once the inputs live on the gpu, only the outputs are new there.
    await engine.run(op, { strategy: { only: 'gpu' } });
    expect(engine.explain(op).memory['gpu']).toMatchObject({ inputBytes: 0, outputBytes: 80, totalBytes: 80 });
  });
});
