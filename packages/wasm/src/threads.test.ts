import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { KernelPool } from './kernel-pool.ts';
import { KERNEL_NAMES } from './kernel-exports.ts';
import { loadKernels } from './instantiate.ts';
import { SPLIT_HOP_MIN_EDGES } from './kernels/spread_activation.ts';
import { splitRange, threadsFor } from './split.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { quantizeAs } from '@tandem/core';
import { attention, cosineSimilarity, matmul, quantizedMatmul, spreadActivation } from '@tandem/reference';

describe('splitRange / threadsFor', () => {
  it('covers the range exactly, on granule boundaries, without empty pieces', () => {
    expect(splitRange(10, 2)).toEqual([
      [0, 5],
      [5, 10],
    ]);
    expect(splitRange(10, 3, 4)).toEqual([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
    expect(splitRange(3, 4)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(splitRange(0, 2)).toEqual([]);
    for (const [total, parts, granule] of [
      [1000, 3, 8],
      [17, 2, 4],
      [65, 4, 16],
    ] as const) {
      const ranges = splitRange(total, parts, granule);
      expect(ranges[0]?.[0]).toBe(0);
      expect(ranges[ranges.length - 1]?.[1]).toBe(total);
      ranges.forEach(([b, e], i) => {
        expect(e).toBeGreaterThan(b);
        if (i > 0) expect(b).toBe(ranges[i - 1]?.[1]);
        if (e !== total) expect(e % granule).toBe(0);
      });
    }
  });

  it('keeps small ops on one thread', () => {
    expect(threadsFor(2, 1e5, 1000, 4)).toBe(1);
    expect(threadsFor(1, 1e9, 1000, 4)).toBe(1);
    expect(threadsFor(4, 1e9, 1000, 4)).toBe(4);
    expect(threadsFor(4, 1e9, 10, 4)).toBe(2);
  });
});

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend({ threads: 2 });
});
afterAll(async () => {
  await backend.dispose();
});

describe('threads: 2 (worker pool over shared memory)', () => {
  it('starts one worker and reports the threads feature', () => {
    expect(backend.describe().features).toContain('threads');
    expect(backend.threadStats().threads).toBe(2);
    expect(backend.health()).toEqual({ state: 'healthy' });
  });

  it('splits a large matmul by rows and matches JS, remainders included', async () => {
    const random = createRandom(80);
    const before = backend.threadStats().parallelOps;
    for (const [m, k, n] of [
      [201, 300, 70],
      [64, 257, 263],
    ] as const) {
      const a = randomFloats(random, m * k);
      const b = randomFloats(random, k * n);
      expectClose(
        await runF32(backend, { op: 'matmul', a: f32([m, k], a), b: f32([k, n], b) }),
        matmul(a, b, m, k, n),
        { abs: 2e-6 * k, rel: 1e-5 },
        `${m}x${k}x${n}`,
      );
    }
    expect(backend.threadStats().parallelOps - before).toBe(2);
  });

  it('splits quantized matmul: weight rows for decode, x rows for batches', async () => {
    const random = createRandom(81);
    const before = backend.threadStats().parallelOps;
    for (const dtype of ['q4_0', 'q8_0'] as const) {
      for (const [m, k, n] of [
        [1, 1024, 4100],
        [20, 512, 520],
      ] as const) {
        const x = randomFloats(random, m * k);
        const w = quantizeAs(dtype, randomFloats(random, n * k));
        const out = await runF32(backend, {
          op: 'quantizedMatmul',
          x: f32([m, k], x),
          w: { dtype, shape: [n, k], data: w },
        });
        expectClose(
          out,
          quantizedMatmul(x, w, dtype, m, k, n),
          { abs: 2e-6 * k, rel: 1e-5 },
          `${dtype} ${m}x${k}x${n}`,
        );
      }
    }
    expect(backend.threadStats().parallelOps - before).toBe(4);
  });

  it('splits attention over (query, head) rows and cosine similarity over targets', async () => {
    const random = createRandom(82);
    const before = backend.threadStats().parallelOps;
    const [sq, sk, h, hkv, d] = [1, 2048, 8, 2, 128];
    const q = randomFloats(random, sq * h * d);
    const k = randomFloats(random, sk * hkv * d);
    const v = randomFloats(random, sk * hkv * d);
    const att = await runF32(backend, {
      op: 'attention',
      q: f32([sq, h, d], q),
      k: f32([sk, hkv, d], k),
      v: f32([sk, hkv, d], v),
      causal: true,
      scale: undefined,
    });
    expectClose(
      att,
      attention(q, k, v, { sq, sk, heads: h, kvHeads: hkv, headDim: d }, true, undefined),
      { abs: 2e-6, rel: 1e-5 },
      'attention',
    );
    const [nt, dim] = [8200, 512];
    const t = randomFloats(random, nt * dim);
    const one = randomFloats(random, dim);
    const cos = await runF32(backend, { op: 'cosineSimilarity', queries: f32([dim], one), targets: f32([nt, dim], t) });
    expectClose(cos, cosineSimilarity(one, t, 1, nt, dim), { abs: 2e-6, rel: 2e-6 }, 'cosine');
    expect(backend.threadStats().parallelOps - before).toBe(2);
  });

  it('keeps small ops on the calling thread', async () => {
    const before = backend.threadStats().parallelOps;
    await runF32(backend, { op: 'matmul', a: f32([8, 8], new Float32Array(64)), b: f32([8, 8], new Float32Array(64)) });
    expect(backend.threadStats().parallelOps).toBe(before);
  });
});

describe('threads: spreadActivation', () => {
  /** A random graph of `nodes` nodes, `degree` out-edges each, and `seeds` seed vectors with a tenth of the nodes lit. */
  function spreadOp(nodes: number, degree: number, seeds: number, iterations: number) {
    const signed = createRandom(90 + seeds);
    const random = (): number => (signed() + 1) / 2; // [0, 1)
    const colIdx = Uint32Array.from({ length: nodes * degree }, () => Math.floor(random() * nodes));
    const weights = Float32Array.from({ length: nodes * degree }, () => random());
    const initial = Float32Array.from({ length: seeds * nodes }, () => (random() < 0.1 ? random() : 0));
    const rowPtr = Uint32Array.from({ length: nodes + 1 }, (_, i) => i * degree);
    const op = {
      op: 'spreadActivation' as const,
      rowPtr: { dtype: 'u32' as const, shape: [nodes + 1], data: rowPtr },
      colIdx: { dtype: 'u32' as const, shape: [colIdx.length], data: colIdx },
      weights: f32([weights.length], weights),
      initial: f32(seeds === 1 ? [nodes] : [seeds, nodes], initial),
      decay: 0.5,
      threshold: 0.05,
      iterations,
    };
    const want = new Float32Array(seeds * nodes);
    for (let s = 0; s < seeds; s++) {
      want.set(
        spreadActivation({ rowPtr, colIdx, weights }, initial.subarray(s * nodes, (s + 1) * nodes), {
          decay: 0.5,
          threshold: 0.05,
          iterations,
        }),
        s * nodes,
      );
    }
    return { op, want };
  }

  it('splits one seed per hop (rows by edges, then nodes) and a batch by seeds, matching JS', async () => {
    for (const [nodes, seeds, iterations] of [
      [SPLIT_HOP_MIN_EDGES / 8, 1, 3],
      [SPLIT_HOP_MIN_EDGES / 8, 1, 4],
      [80_000, 5, 2],
    ] as const) {
      const before = backend.threadStats().parallelOps;
      const { op, want } = spreadOp(nodes, 8, seeds, iterations); // past PARALLEL_MIN_FLOPS, and one seed's graph past SPLIT_HOP_MIN_EDGES
      expectClose(await runF32(backend, op), want, { abs: 1e-5, rel: 1e-4 }, `${seeds} seeds x${iterations}`);
      // Per hop two parallel steps for one seed; one for a batch.
      expect(backend.threadStats().parallelOps - before).toBe(seeds === 1 ? 2 * iterations : 1);
    }
    // One seed over a graph below SPLIT_HOP_MIN_EDGES stays on one thread (WordNet's 362k edges ran slower split).
    const before = backend.threadStats().parallelOps;
    const { op, want } = spreadOp(80_000, 8, 1, 20);
    expectClose(await runF32(backend, op), want, { abs: 1e-5, rel: 1e-4 }, 'one seed, small graph');
    expect(backend.threadStats().parallelOps).toBe(before);
  });
});

describe('KernelPool', () => {
  it('runs jobs posted right after start-up, and thousands back to back, without losing one', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const loaded = await loadKernels({ simd: 'simd', threads: true, maxBytes: 1 << 28, distUrl: undefined });
      if (!loaded.ok) throw new Error(loaded.reason);
      const { module, memory, kernels } = loaded.loaded;
      const pool = await KernelPool.start(module, memory, 1, 1 << 16, KERNEL_NAMES);
      try {
        const data = new Float32Array(memory.buffer, 1 << 17, 64);
        data.fill(1);
        const half = (offset: number) => ({
          name: 'scale_f32' as const,
          args: [(1 << 17) + offset * 4, (1 << 17) + offset * 4, 32, 2],
        });
        const rounds = attempt === 0 ? 2000 : 1;
        for (let i = 0; i < rounds; i++) await pool.run(kernels, [half(0), half(32)]);
        expect(data[0]).toBe(2 ** rounds > 1e30 ? Infinity : 2 ** rounds);
        expect(data[63]).toBe(data[0]);
      } finally {
        pool.terminate();
      }
    }
  });

  it('runs a job on the calling thread when no worker takes it, instead of waiting', async () => {
    const loaded = await loadKernels({ simd: 'simd', threads: true, maxBytes: 1 << 28, distUrl: undefined });
    if (!loaded.ok) throw new Error(loaded.reason);
    const { module, memory, kernels } = loaded.loaded;
    const pool = await KernelPool.start(module, memory, 1, 1 << 16, KERNEL_NAMES);
    try {
      const control = new Int32Array(memory.buffer, 1 << 16, 6);
      Atomics.store(control, 0, -1); // the worker leaves its job loop: from now on nobody takes a job
      Atomics.notify(control, 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const data = new Float32Array(memory.buffer, 1 << 17, 64);
      data.fill(3);
      const half = (offset: number) => ({
        name: 'scale_f32' as const,
        args: [(1 << 17) + offset * 4, (1 << 17) + offset * 4, 32, 2],
      });
      await pool.run(kernels, [half(0), half(32)]);
      expect([data[0], data[31], data[32], data[63]]).toEqual([6, 6, 6, 6]);
      expect(pool.takenBack).toBe(1);
    } finally {
      pool.terminate();
    }
  });

  it('rejects a job whose kernel traps in a worker, naming the trap, and keeps working afterwards', async () => {
    const loaded = await loadKernels({ simd: 'simd', threads: true, maxBytes: 1 << 28, distUrl: undefined });
    if (!loaded.ok) throw new Error(loaded.reason);
    const { module, memory, kernels } = loaded.loaded;
    const pool = await KernelPool.start(module, memory, 1, 1 << 16, KERNEL_NAMES);
    try {
      const outOfBounds = { name: 'scale_f32' as const, args: [0x7fff0000, 0x7fff0000, 64, 2] };
      const fine = { name: 'scale_f32' as const, args: [1 << 17, 1 << 17, 64, 2] };
      // The calling thread's job is long, so the worker takes its job first (else the caller would take it back
      // and trap itself, which rejects with the same trap without the worker's prefix).
      const long = { name: 'scale_f32' as const, args: [1 << 20, 1 << 20, 2 << 20, 1] };
      await expect(pool.run(kernels, [long, outOfBounds])).rejects.toThrow(/(worker kernel failed: .*)?out of bounds/);
      await expect(pool.run(kernels, [fine, fine])).resolves.toBeUndefined();
    } finally {
      pool.terminate();
    }
  });

  it('fails to start when the workers cannot instantiate the module', async () => {
    const plain = await loadKernels({ simd: 'simd', threads: false, maxBytes: 1 << 28, distUrl: undefined });
    const shared = await loadKernels({ simd: 'simd', threads: true, maxBytes: 1 << 28, distUrl: undefined });
    if (!plain.ok || !shared.ok) throw new Error('kernels did not load');
    // The plain build imports non-shared memory: linking it against the shared memory fails in the worker.
    await expect(KernelPool.start(plain.loaded.module, shared.loaded.memory, 1, 1 << 16, KERNEL_NAMES)).rejects.toThrow(
      /could not instantiate/,
    );
  });

  it('lets a Node process exit while an idle pool is alive', () => {
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    const code = `const { WasmBackend } = await import(${JSON.stringify(entry)}); const b = new WasmBackend({ threads: 2 }); const r = await b.init(); if (!r.ok || !b.describe().features.includes('threads')) process.exit(3);`;
    const started = Date.now();
    execFileSync(
      process.execPath,
      ['--conditions=@tandem/source', '--import', 'tsx', '--input-type=module', '-e', code],
      { timeout: 30_000, stdio: 'pipe' },
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
