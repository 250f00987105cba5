// spreadActivation against JS on random CSR graphs, empty graphs and thresholds.
import { afterAll, describe, it } from 'vitest';
import { createTestBackend, runF32, upload } from './test-support/gpu.ts';
import { createRandom, expectClose } from './test-support/random.ts';
import { spreadActivation } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

/** A random CSR graph with up to `maxDegree` out-edges per node. */
function randomGraph(
  nodes: number,
  maxDegree: number,
  seed: number,
): { rowPtr: Uint32Array; colIdx: Uint32Array; weights: Float32Array; initial: Float32Array } {
  const next = createRandom(seed);
  const rowPtr = new Uint32Array(nodes + 1);
  const cols: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < nodes; i++) {
    const degree = Math.floor(next() * (maxDegree + 1));
    for (let e = 0; e < degree; e++) {
      cols.push(Math.floor(next() * nodes));
      weights.push(next());
    }
    rowPtr[i + 1] = cols.length;
  }
  const initial = Float32Array.from({ length: nodes }, () => (next() < 0.5 ? next() : 0));
  return { rowPtr, colIdx: Uint32Array.from(cols), weights: Float32Array.from(weights), initial };
}

describe.skipIf(!setup.ok)('spreadActivation on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  it.each([
    [1, 1, 1],
    [3, 2, 1],
    [7, 3, 2],
    [17, 4, 3],
    [33, 5, 4],
    [65, 6, 5],
    [65, 0, 3],
    [0, 0, 2],
  ])('nodes=%i maxDegree=%i iterations=%i', async (nodes, maxDegree, iterations) => {
    const g = randomGraph(nodes, maxDegree, nodes * 7 + maxDegree);
    const edges = g.colIdx.length;
    const rowPtr = await upload(backend, 'u32', [nodes + 1], g.rowPtr);
    const colIdx = await upload(backend, 'u32', [edges], g.colIdx);
    const weights = await upload(backend, 'f32', [edges], g.weights);
    const initial = await upload(backend, 'f32', [nodes], g.initial);
    for (const threshold of [0, 0.3]) {
      const op = {
        op: 'spreadActivation',
        rowPtr,
        colIdx,
        weights,
        initial,
        decay: 0.7,
        threshold,
        iterations,
      } as const;
      const expected = spreadActivation(g, g.initial, { decay: 0.7, threshold, iterations });
      expectClose(await runF32(backend, op), expected, 1e-5, 1e-5, `spread threshold=${threshold}`);
    }
  });
});
