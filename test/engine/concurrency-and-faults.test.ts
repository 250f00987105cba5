// Many async callers at once, with faults injected into a "GPU" that is really the reference backend:
// every result must equal the reference's, no rejection may escape, and the counts must add up.
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { matmul, ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultRate } from '@tandem/testing';
import { createEngine } from 'tandem';

describe('concurrency with injected faults', () => {
  it('1,000 concurrent calls, 5% faults: every result right, counts consistent', async () => {
    const flaky = new FaultInjectingBackend(new ReferenceBackend(), faultRate(0.05, ['throw', 'reject', 'oom'], 7), {
      name: 'flaky-gpu',
      kind: 'gpu',
      priority: 1,
    });
    const engine = await Engine.create({
      backends: [flaky, new ReferenceBackend()],
      strategy: 'gpu-preferred',
      tracker: { successRateThreshold: 0.5 },
    });
    const n = 8;
    const inputs = Array.from({ length: 10 }, (_, s) =>
      Float32Array.from({ length: n * n }, (_, i) => ((i * 7 + s * 13) % 17) - 8),
    );
    const tensors = inputs.map((d) => engine.tensor(d, [n, n]));
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const calls = Array.from({ length: 1000 }, (_, i) => {
        const [a, b] = [tensors[i % 10], tensors[(i * 3 + 1) % 10]];
        if (a === undefined || b === undefined) throw new Error(`no tensor ${i}`);
        return engine
          .matmul(a, b)
          .then((c) => c.read())
          .then((got) => ({ i, got }));
      });
      const results = await Promise.all(calls);
      for (const { i, got } of results) {
        const want = matmul(inputs[i % 10] as Float32Array, inputs[(i * 3 + 1) % 10] as Float32Array, n, n, n);
        expect(got).toEqual(want); // small integers: exact in f32
      }
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    const s = engine.telemetry.summary();
    expect(flaky.totalInjected).toBeGreaterThan(20);
    expect(s.totalOps).toBe(1000);
    expect(s.totalFailures).toBe(flaky.totalInjected);
    expect(s.fallbacks).toBe(flaky.totalInjected);
    const stats = engine.trackerStats();
    const gpu = stats.find((x) => x.backend === 'flaky-gpu');
    const cpu = stats.find((x) => x.backend === 'reference');
    expect((gpu?.successes ?? 0) + (cpu?.successes ?? 0)).toBe(1000);
    expect(gpu?.failures).toBe(flaky.totalInjected);
    // Every fallback is visible with its cause.
    const fallbacks = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'error-fallback');
    expect(fallbacks.length).toBe(flaky.totalInjected);
    for (const e of fallbacks)
      expect(e.reason).toMatchObject({ failed: 'flaky-gpu', error: expect.stringMatching(/injected|out of memory/) });
  });
});

describe('createEngine', () => {
  it('picks the backends present and names each', async () => {
    const engine = await createEngine();
    const names = engine.backends().map((b) => b.name);
    expect(names).toContain('reference');
    expect(engine.backends().find((b) => b.name === 'reference')?.available).toBe(true);
  });

  it('TANDEM_FORCE_CPU=1 forces CPU backends', async () => {
    process.env['TANDEM_FORCE_CPU'] = '1';
    try {
      const gpu = new FaultInjectingBackend(new ReferenceBackend(), () => undefined, { name: 'gpu', kind: 'gpu' });
      const engine = await createEngine({ backends: [gpu, new ReferenceBackend()] });
      const x = engine.tensor(new Float32Array(4), [2, 2]);
      expect(engine.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }).selection).toMatchObject({
        backend: 'reference',
        reason: { kind: 'force-cpu' },
      });
    } finally {
      delete process.env['TANDEM_FORCE_CPU'];
    }
  });

  it('reports a factory that fails to load, and carries on', async () => {
    const engine = await createEngine({
      factories: [
        { name: 'broken', kind: 'gpu', create: async () => Promise.reject(new Error('module not found')) },
        { name: 'reference', kind: 'cpu', create: async () => new ReferenceBackend() },
      ],
    });
    expect(engine.backends().map((b) => [b.name, b.available, b.unavailableReason])).toEqual([
      ['broken', false, 'module not found'],
      ['reference', true, undefined],
    ]);
    expect(engine.telemetry.noticeEvents()).toContainEqual(
      expect.objectContaining({ kind: 'backend-unavailable', backend: 'broken', detail: 'module not found' }),
    );
  });
});
