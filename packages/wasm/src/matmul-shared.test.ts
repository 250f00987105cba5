// matmul_f32_shared: the threaded f32 matmul that packs B once for all threads and hands out row chunks by claim.
import { describe, expect, it } from 'vitest';
import { loadKernels } from './instantiate.ts';
import { chunkRowsFor } from './kernels/matmul.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { matmul } from '@tandem/reference';

/** Where the test puts its arrays in linear memory (above the kernels' static data, below the 16 MiB start size). */
const BASE = 1 << 20;

async function kernelsOnSharedMemory() {
  const loaded = await loadKernels({ simd: 'simd', threads: true, maxBytes: 1 << 28, distUrl: undefined });
  if (!loaded.ok) throw new Error(loaded.reason);
  return loaded.loaded;
}

/** Lays out A, B, C, the shared block and one thread's block; returns their offsets. */
function layout(m: number, k: number, n: number, sharedBytes: number, ownBytes: number) {
  const align = (x: number): number => Math.ceil(x / 16) * 16;
  const a = BASE;
  const b = align(a + m * k * 4);
  const c = align(b + k * n * 4);
  const shared = align(c + m * n * 4);
  const own = align(shared + sharedBytes);
  return { a, b, c, shared, own, end: own + ownBytes };
}

describe('chunkRowsFor', () => {
  it('gives about eight claims per thread, 16..128 rows, multiples of 4', () => {
    expect(chunkRowsFor(256, 2)).toBe(16);
    expect(chunkRowsFor(1024, 2)).toBe(64);
    expect(chunkRowsFor(4096, 2)).toBe(128);
    expect(chunkRowsFor(40, 2)).toBe(16);
    expect(chunkRowsFor(1000, 3)).toBe(44);
  });
});

describe('matmul_f32_shared on one thread (the others never came)', () => {
  for (const [m, k, n] of [
    [37, 300, 45],
    [128, 513, 64],
  ] as const) {
    it(`computes ${m}x${k}x${n} alone, and a late thread afterwards changes nothing`, async () => {
      const { kernels, memory } = await kernelsOnSharedMemory();
      const random = createRandom(m + k + n);
      const [av, bv] = [randomFloats(random, m * k), randomFloats(random, k * n)];
      const at = layout(m, k, n, kernels.matmul_f32_shared_bytes(k, n), kernels.matmul_f32_shared_thread_bytes());
      new Float32Array(memory.buffer, at.a, m * k).set(av);
      new Float32Array(memory.buffer, at.b, k * n).set(bv);
      kernels.matmul_f32_shared_reset(at.shared);
      kernels.matmul_f32_shared(at.a, at.b, at.c, m, k, n, at.shared, at.own, 16);
      const want = matmul(av, bv, m, k, n);
      expectClose(new Float32Array(memory.buffer, at.c, m * n), want, { abs: 2e-6 * k, rel: 1e-5 }, 'alone');
      kernels.matmul_f32_shared(at.a, at.b, at.c, m, k, n, at.shared, at.own, 16);
      expectClose(
        new Float32Array(memory.buffer, at.c, m * n),
        want,
        { abs: 2e-6 * k, rel: 1e-5 },
        'after a late thread',
      );
      const state = new Int32Array(memory.buffer, at.shared, 3);
      expect(Array.from(state)).toEqual([
        Math.ceil(k / 256) * Math.ceil(n / 8) + 2,
        Math.ceil(k / 256) * Math.ceil(n / 8),
        Math.ceil(m / 16) + 2,
      ]);
    });
  }

  it('packs every panel itself when a thread that claimed panels never finishes them', async () => {
    const { kernels, memory } = await kernelsOnSharedMemory();
    const [m, k, n] = [20, 260, 24];
    const random = createRandom(7);
    const [av, bv] = [randomFloats(random, m * k), randomFloats(random, k * n)];
    const at = layout(m, k, n, kernels.matmul_f32_shared_bytes(k, n), kernels.matmul_f32_shared_thread_bytes());
    new Float32Array(memory.buffer, at.a, m * k).set(av);
    new Float32Array(memory.buffer, at.b, k * n).set(bv);
    kernels.matmul_f32_shared_reset(at.shared);
    new Float32Array(memory.buffer, at.shared + 16, kernels.matmul_f32_shared_bytes(k, n) / 4 - 4).fill(NaN);
    new Int32Array(memory.buffer, at.shared, 1)[0] = 2 * 3; // every panel claimed (2 K blocks x 3 panels), none packed
    kernels.matmul_f32_shared(at.a, at.b, at.c, m, k, n, at.shared, at.own, 16);
    expectClose(
      new Float32Array(memory.buffer, at.c, m * n),
      matmul(av, bv, m, k, n),
      { abs: 2e-6 * k, rel: 1e-5 },
      'after the fallback',
    );
  });
});

describe('matmul_f32_shared through the backend', () => {
  it('splits uneven shapes over three threads and matches JS', async () => {
    const backend = await startedBackend({ threads: 3 });
    try {
      const random = createRandom(90);
      const before = backend.threadStats().parallelOps;
      for (const [m, k, n] of [
        [130, 520, 70],
        [257, 64, 263],
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
      expect(backend.threadStats()).toMatchObject({ threads: 3, parallelOps: before + 2 });
    } finally {
      await backend.dispose();
    }
  });
});
