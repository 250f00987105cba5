import { describe, expect, it } from 'vitest';
import { findCrossovers, type SweepPoint } from './sweep-measure.ts';

function points(series: string, ms: readonly number[]): SweepPoint[] {
  return ms.map((medianMs, i) => ({ series, size: 2 ** (i + 5), medianMs, status: 'ok' }));
}

describe('findCrossovers', () => {
  it('finds the size from which the GPU wins at every larger size, against the best CPU backend', () => {
    const measured = [...points('wasm', [1, 2, 8, 32]), ...points('reference', [0.5, 4, 30, 200]), ...points('webgpu', [3, 1, 9, 10])];
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
    const [crossover] = findCrossovers([...points('wasm', [5, 9, 20]), { series: 'webgpu', size: 32, medianMs: 1, status: 'ok' }, lost, { series: 'webgpu', size: 128, medianMs: 2, status: 'ok' }], ['webgpu'], ['wasm']);
    expect(crossover?.size).toBe(32);
  });
});
