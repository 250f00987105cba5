import { beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { asF32, asI32, expectClose, f32, runF32, runOnBackend, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { cosineSimilarity, spreadActivation, topK } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

describe('cosineSimilarity', () => {
  it('scores parallel, orthogonal, opposite and zero vectors', async () => {
    const out = await runF32(backend, {
      op: 'cosineSimilarity',
      queries: f32([2], [1, 0]),
      targets: f32([4, 2], [2, 0, 0, 3, -1, 0, 0, 0]),
    });
    expect(Array.from(out)).toEqual([1, 0, -1, 0]);
  });

  it('matches JS for one and several queries, every dim remainder, 768', async () => {
    const random = createRandom(60);
    for (const [nq, nt, dim] of [
      [1, 5, 1],
      [1, 7, 3],
      [1, 9, 17],
      [1, 50, 768],
      [3, 65, 33],
      [5, 100, 16],
      [2, 3, 7],
      [4, 130, 768],
    ] as const) {
      const q = randomFloats(random, nq * dim);
      const t = randomFloats(random, nt * dim);
      const queries = nq === 1 ? f32([dim], q) : f32([nq, dim], q);
      expectClose(
        await runF32(backend, { op: 'cosineSimilarity', queries, targets: f32([nt, dim], t) }),
        cosineSimilarity(q, t, nq, nt, dim),
        { abs: 2e-6, rel: 2e-6 },
        `${nq}x${nt}x${dim}`,
      );
    }
  });
});

describe('cosineSimilarity norm cache', () => {
  it('reuses the squared norms kept with a resident targets buffer and frees them with it', async () => {
    const random = createRandom(63);
    const [nt, dim] = [37, 20];
    const t = randomFloats(random, nt * dim);
    const baseline = backend.memoryStats()?.usedBytes ?? 0;
    const targets = {
      dtype: 'f32' as const,
      shape: [nt, dim],
      buffer: await backend.upload(new Uint8Array(t.buffer), { dtype: 'f32', shape: [nt, dim] }),
    };
    for (const nq of [1, 1, 3, 1]) {
      const q = randomFloats(random, nq * dim);
      const queries = {
        dtype: 'f32' as const,
        shape: [nq, dim],
        buffer: await backend.upload(new Uint8Array(q.buffer), { dtype: 'f32', shape: [nq, dim] }),
      };
      const result = await backend.run({ op: 'cosineSimilarity', queries, targets }, [
        { dtype: 'f32', shape: [nq, nt] },
      ]);
      const out = asF32(await backend.download(result.outputs[0] ?? queries.buffer));
      expectClose(out, cosineSimilarity(q, t, nq, nt, dim), { abs: 2e-6, rel: 2e-6 }, `call with ${nq} queries`);
      for (const b of result.outputs) backend.free(b);
      backend.free(queries.buffer);
    }
    // The same buffer seen with another shape gets its own norms: the cache is keyed by shape too.
    const reshaped = { ...targets, shape: [nt * 2, dim / 2] };
    const q2 = randomFloats(random, dim / 2);
    const queries = {
      dtype: 'f32' as const,
      shape: [dim / 2],
      buffer: await backend.upload(new Uint8Array(q2.buffer), { dtype: 'f32', shape: [dim / 2] }),
    };
    const result = await backend.run({ op: 'cosineSimilarity', queries, targets: reshaped }, [
      { dtype: 'f32', shape: [1, nt * 2] },
    ]);
    expectClose(
      asF32(await backend.download(result.outputs[0] ?? queries.buffer)),
      cosineSimilarity(q2, t, 1, nt * 2, dim / 2),
      { abs: 2e-6, rel: 2e-6 },
      'reshaped',
    );
    for (const b of result.outputs) backend.free(b);
    backend.free(queries.buffer);
    backend.free(targets.buffer);
    expect(backend.memoryStats()?.usedBytes).toBe(baseline);
  });
});

describe('topK', () => {
  it('keeps the k largest, descending, lower index first on ties, NaN below -inf', async () => {
    const x = f32([2, 6], [3, 1, 3, NaN, -Infinity, 5, NaN, NaN, -Infinity, 0, -0, 2]);
    const { outputs } = await runOnBackend(backend, { op: 'topK', x, k: 6 });
    const values = asF32(outputs[0] ?? new Uint8Array());
    const indices = asI32(outputs[1] ?? new Uint8Array());
    expect(Array.from(indices)).toEqual([5, 0, 2, 1, 4, 3, 5, 3, 4, 2, 0, 1]);
    expect(Array.from(values.slice(0, 5))).toEqual([5, 3, 3, 1, -Infinity]);
    expect(values[5]).toBeNaN();
  });

  it('matches a sort for random rows with repeated values', async () => {
    const random = createRandom(61);
    for (const [rows, n, k] of [
      [1, 1, 1],
      [1, 17, 5],
      [3, 100, 1],
      [4, 65, 65],
      [2, 1000, 10],
      [5, 33, 7],
    ] as const) {
      const x = Float32Array.from(randomFloats(random, rows * n), (v) => Math.round(v * 8) / 8);
      const { outputs } = await runOnBackend(backend, {
        op: 'topK',
        x: rows === 1 ? f32([n], x) : f32([rows, n], x),
        k,
      });
      const want = topK(x, rows, n, k);
      expect(Array.from(asI32(outputs[1] ?? new Uint8Array())), `${rows}x${n} k=${k}`).toEqual(
        Array.from(want.indices),
      );
      expect(Array.from(asF32(outputs[0] ?? new Uint8Array()))).toEqual(Array.from(want.values));
    }
  });
});

describe('spreadActivation', () => {
  function graph(
    rowPtr: number[],
    colIdx: number[],
    weights: number[],
    initial: number[],
    decay: number,
    threshold: number,
    iterations: number,
  ) {
    return {
      op: 'spreadActivation' as const,
      rowPtr: { dtype: 'u32' as const, shape: [rowPtr.length], data: Uint32Array.from(rowPtr) },
      colIdx: { dtype: 'u32' as const, shape: [colIdx.length], data: Uint32Array.from(colIdx) },
      weights: f32([weights.length], weights),
      initial: f32([initial.length], initial),
      decay,
      threshold,
      iterations,
    };
  }

  it('spreads along a chain by hand: 0 -> 1 -> 2', async () => {
    const out = await runF32(backend, graph([0, 1, 2, 2], [1, 2], [0.5, 0.5], [1, 0, 0], 1, 0.1, 2));
    // hop 1: [1, 0.5, 0]; hop 2: node 1 (0.5 >= 0.1) feeds node 2, node 0 feeds node 1 again.
    expect(Array.from(out)).toEqual([1, 1, 0.25]);
  });

  it('matches JS on a random graph, honours the threshold and skips out-of-range edges', async () => {
    const random = createRandom(62);
    const nodes = 50;
    const rowPtr = [0];
    const colIdx: number[] = [];
    for (let i = 0; i < nodes; i++) {
      const degree = Math.floor((random() + 1) * 3);
      for (let d = 0; d < degree; d++) colIdx.push(Math.floor(((random() + 1) / 2) * nodes));
      rowPtr.push(colIdx.length);
    }
    const weights = Array.from(colIdx, () => (random() + 1) / 2);
    const initial = Array.from({ length: nodes }, () => Math.max(0, random()));
    for (const iterations of [1, 2, 5]) {
      const out = await runF32(backend, graph(rowPtr, colIdx, weights, initial, 0.7, 0.2, iterations));
      expectClose(
        out,
        spreadActivation(
          { rowPtr: Uint32Array.from(rowPtr), colIdx: Uint32Array.from(colIdx), weights: Float32Array.from(weights) },
          Float32Array.from(initial),
          { decay: 0.7, threshold: 0.2, iterations },
        ),
        { abs: 1e-6, rel: 1e-5 },
        `iterations=${iterations}`,
      );
    }
    const broken = await runF32(backend, graph([0, 2, 99], [1, 7], [1, 1], [1, 1], 1, 0, 1));
    expect(Array.from(broken)).toEqual([1, 2]);
  });
});
