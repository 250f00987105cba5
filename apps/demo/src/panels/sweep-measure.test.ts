import { describe, expect, it, vi } from 'vitest';
import { findCrossovers } from './sweep-crossovers.ts';
import type { SweepPoint } from './sweep-measure.ts';

function points(series: string, ms: readonly number[]): SweepPoint[] {
  return ms.map((medianMs, i) => ({ series, size: 2 ** (i + 5), medianMs, status: 'ok' }));
}

describe('findCrossovers', () => {
  it('finds the size from which the GPU wins at every larger size, against the best CPU backend', () => {
    const measured = [
      ...points('wasm', [1, 2, 8, 32]),
      ...points('reference', [0.5, 4, 30, 200]),
      ...points('webgpu', [3, 1, 9, 10]),
    ];
    const [crossover] = findCrossovers(measured, ['webgpu'], ['wasm', 'reference']);
    // n=32: wasm-or-reference 0.5 < 3; n=64: 1 < 2 (GPU wins); n=128: 9 > 8 (loses again); n=256: 10 < 32.
    expect(crossover?.size).toBe(256);
    expect(crossover?.text).toContain('crossover at n = 256');
  });

  it('says so when the GPU never wins, or always wins', () => {
    const slowGpu = findCrossovers([...points('wasm', [1, 2]), ...points('webgpu', [5, 9])], ['webgpu'], ['wasm']);
    expect(slowGpu[0]?.size).toBeUndefined();
    expect(slowGpu[0]?.text).toContain('slower than the CPU at every size');
    const fastGpu = findCrossovers([...points('wasm', [5, 9]), ...points('webgpu', [1, 2])], ['webgpu'], ['wasm']);
    expect(fastGpu[0]?.size).toBe(32);
    expect(fastGpu[0]?.text).toContain('faster than the CPU at every size');
  });

  it('leaves lost points out: a GPU point lost to a device loss neither wins nor loses', () => {
    const lost: SweepPoint = { series: 'webgpu', size: 64, medianMs: Number.NaN, status: 'lost', note: 'device lost' };
    const [crossover] = findCrossovers(
      [
        ...points('wasm', [5, 9, 20]),
        { series: 'webgpu', size: 32, medianMs: 1, status: 'ok' },
        lost,
        { series: 'webgpu', size: 128, medianMs: 2, status: 'ok' },
      ],
      ['webgpu'],
      ['wasm'],
    );
    expect(crossover?.size).toBe(32);
  });
});

describe('runSweep', () => {
  it('marks the points a lost device takes, carries on with every other point, and stops when cancelled', async () => {
    const { Engine } = await import('@tandem/core');
    const { ReferenceBackend } = await import('@tandem/reference');
    const { FaultInjectingBackend } = await import('@tandem/testing');
    const { runSweep } = await import('./sweep-measure.ts');
    // "gpu" fails every matmul of n = 32 (as a lost device would), and runs the other sizes.
    const gpu = new FaultInjectingBackend(
      new ReferenceBackend(),
      (_call, op) => (op.op === 'matmul' && op.a.shape[0] === 32 ? 'reject' : undefined),
      { name: 'gpu', kind: 'gpu', priority: 20 },
    );
    const engine = await Engine.create({ backends: [new ReferenceBackend(), gpu] });
    try {
      const seen: string[] = [];
      const points = await runSweep(
        engine,
        'matmul',
        ['reference', 'gpu'],
        (p, done, total) => {
          seen.push(`${done}/${total} ${p.series}@${p.size} ${p.status}`);
        },
        { cancelled: false },
        (e) => (e instanceof Error ? e.message : String(e)),
      );
      const gpuPoints = points.filter((p) => p.series === 'gpu');
      expect(gpuPoints.map((p) => p.status)).toEqual(['ok', 'lost', 'ok', 'ok', 'ok', 'ok']);
      expect(gpuPoints[1]?.note).toMatch(/gpu/);
      expect(points.filter((p) => p.series !== 'gpu').every((p) => p.status === 'ok')).toBe(true);
      expect(seen).toHaveLength(18);
      expect(seen[17]).toMatch(/^18\/18 /);

      const control = { cancelled: false };
      const partial = await runSweep(
        engine,
        'matmul',
        ['reference'],
        (_p, done) => {
          if (done === 2) control.cancelled = true;
        },
        control,
      );
      expect(partial).toHaveLength(2);
    } finally {
      await engine.dispose();
    }
  });

  it("measures nothing while the page draws a point: the next call waits for onPoint's promise", async () => {
    const { Engine } = await import('@tandem/core');
    const { ReferenceBackend } = await import('@tandem/reference');
    const { FaultInjectingBackend } = await import('@tandem/testing');
    const { runSweep } = await import('./sweep-measure.ts');
    let calls = 0;
    const counted = new FaultInjectingBackend(
      new ReferenceBackend(),
      () => {
        calls++;
        return undefined;
      },
      { name: 'counted', kind: 'cpu', priority: 10 },
    );
    const engine = await Engine.create({ backends: [counted] });
    try {
      const control = { cancelled: false };
      const drawn: (() => void)[] = [];
      const sweep = runSweep(
        engine,
        'matmul',
        ['counted'],
        () => new Promise<void>((resolve) => drawn.push(resolve)),
        control,
      );
      await vi.waitFor(() => expect(drawn).toHaveLength(1));
      const callsForFirstPoint = calls;
      expect(callsForFirstPoint).toBe(4); // one warm-up and three timed calls
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBe(callsForFirstPoint);
      drawn[0]?.();
      await vi.waitFor(() => expect(drawn).toHaveLength(2));
      expect(calls).toBe(2 * callsForFirstPoint);
      control.cancelled = true;
      drawn[1]?.();
      expect(await sweep).toHaveLength(2);
    } finally {
      await engine.dispose();
    }
  });
});
