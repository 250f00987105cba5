// Property-based tests (fast-check, fixed seed): random shapes (empty and one-element included), dtypes (f32, f16,
// q8_0, q4_0) and values (NaN, +-Inf, subnormals, signed zeros, corrupt quantized scales) through every real
// backend, compared with the reference; "agree" and the tolerances are defined in property-support.ts. One more
// documented exception: f32 accumulation overflows where the float64 reference does not, so dot-product properties
// keep values away from the f32 limit. Invalid input must throw InvalidArgumentError naming the argument; nothing
// may crash. properties-search.test.ts does topK and cosineSimilarity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeF16, InvalidArgumentError, type Tensor } from '@tandem/core';
import { EPS32, f32Dot, F16_OUTPUT, ONE_F32_ROUNDING } from '../conformance/case.ts';
import { AgreementBench, PROPERTY_TIMEOUT_MS, RUNS } from './property-support.ts';

let bench: AgreementBench;

beforeAll(async () => {
  bench = await AgreementBench.create();
}, 60_000);

afterAll(async () => {
  await bench.dispose();
});

const ordinary = fc.float({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true });
/** Special values without the f32 limits (no overflow in f32 sums of products that f64 would not overflow). */
const dotSpecial = fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, -0, 1e-40, -1e-40, 1.5e-45);
const dotValue = fc.oneof({ arbitrary: ordinary, weight: 8 }, { arbitrary: dotSpecial, weight: 2 });
const bounded = fc.float({ min: -8, max: 8, noNaN: true, noDefaultInfinity: true });

describe('every backend agrees with the reference on random shapes and values', () => {
  it('elementwise add, mul, scale, silu on any length (0 and 1 included) with NaN, infinities, denormals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }).chain((n) => fc.tuple(fc.float32Array({ minLength: n, maxLength: n }), fc.float32Array({ minLength: n, maxLength: n }))), async ([a, b]) => {
        const pair = (flush: boolean): [Tensor, Tensor] => [bench.f32(a, [a.length], flush), bench.f32(b, [b.length], flush)];
        await bench.checkEveryBackend((flush) => {
          const [x, y] = pair(flush);
          return { op: { op: 'add', a: x, b: y }, inputs: [x, y] };
        }, ONE_F32_ROUNDING);
        await bench.checkEveryBackend((flush) => {
          const [x, y] = pair(flush);
          return { op: { op: 'mul', a: x, b: y }, inputs: [x, y] };
        }, ONE_F32_ROUNDING);
        await bench.checkEveryBackend((flush) => {
          const x = bench.f32(a, [a.length], flush);
          return { op: { op: 'scale', x, factor: 0.75 }, inputs: [x] };
        }, ONE_F32_ROUNDING);
        await bench.checkEveryBackend((flush) => {
          const x = bench.f32(b, [b.length], flush);
          return { op: { op: 'silu', x }, inputs: [x] };
        }, { abs: 1e-6, rel: 16 * EPS32 });
      }),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('matmul of any M, K, N in 0..17 with special values', async () => {
    const dims = fc.tuple(fc.integer({ min: 0, max: 17 }), fc.integer({ min: 0, max: 17 }), fc.integer({ min: 0, max: 17 }));
    await fc.assert(
      fc.asyncProperty(
        dims.chain(([m, k, n]) => fc.tuple(fc.constant([m, k, n] as const), fc.array(dotValue, { minLength: m * k, maxLength: m * k }), fc.array(dotValue, { minLength: k * n, maxLength: k * n }))),
        async ([[m, k, n], a, b]) => {
          // Products of values up to 1e3 summed in f32: the dot tolerance scaled by the magnitudes involved.
          const scale = 1e6;
          const t = f32Dot(Math.max(k, 1));
          await bench.checkEveryBackend((flush) => {
            const x = bench.f32(a, [m, k], flush);
            const y = bench.f32(b, [k, n], flush);
            return { op: { op: 'matmul', a: x, b: y }, inputs: [x, y] };
          }, { abs: t.abs * scale, rel: t.rel * 4 });
        },
      ),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('softmax and rmsNorm rows of any width, with masked (-inf) entries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 70 })).chain(([rows, cols]) =>
          fc.tuple(fc.constant([rows, cols] as const), fc.array(fc.oneof({ arbitrary: bounded, weight: 9 }, { arbitrary: fc.constant(-Infinity), weight: 1 }), { minLength: rows * cols, maxLength: rows * cols })),
        ),
        async ([[rows, cols], values]) => {
          await bench.checkEveryBackend((flush) => {
            const x = bench.f32(values, [rows, cols], flush);
            return { op: { op: 'softmax', x, causal: false }, inputs: [x] };
          }, { abs: 1e-6, rel: 64 * EPS32 });
          await bench.checkEveryBackend((flush) => {
            const x = bench.f32(values.map((v) => (Number.isFinite(v) ? v : 0)), [rows, cols], flush);
            return { op: { op: 'rmsNorm', x, weight: undefined, eps: 1e-5 }, inputs: [x] };
          }, { abs: 1e-6, rel: 64 * EPS32 });
        },
      ),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('dequantize of q8_0 blocks whose f16 scale is NaN, infinite or subnormal: the same values everywhere', async () => {
    const scaleBits = fc.constantFrom(0x7e00, 0x7c00, 0xfc00, 0x0001, 0x03ff, 0x3c00, 0x0000, 0x8000);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(scaleBits, fc.array(fc.integer({ min: -128, max: 127 }), { minLength: 32, maxLength: 32 })), { minLength: 1, maxLength: 6 }), async (blocks) => {
        const bytes = new Uint8Array(blocks.length * 34);
        blocks.forEach(([scale, qs], b) => {
          bytes[b * 34] = scale & 0xff;
          bytes[b * 34 + 1] = scale >> 8;
          qs.forEach((q, i) => (bytes[b * 34 + 2 + i] = q & 0xff));
        });
        await bench.checkEveryBackend(() => {
          const x = bench.engine.tensor(bytes, [blocks.length, 32], 'q8_0');
          return { op: { op: 'dequantize', x }, inputs: [x] };
        }, ONE_F32_ROUNDING);
      }),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);
});

describe('other dtypes', () => {
  it('f16 add and scale, with f16 NaN, infinities and subnormals', async () => {
    const f16Values = fc.oneof(fc.float({ min: -60000, max: 60000, noNaN: true }), fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, -0, 6e-8, -3e-5));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 200 }).chain((n) => fc.tuple(fc.array(f16Values, { minLength: n, maxLength: n }), fc.array(f16Values, { minLength: n, maxLength: n }))), async ([a, b]) => {
        const bitsA = encodeF16(Float32Array.from(a));
        const bitsB = encodeF16(Float32Array.from(b));
        // f16 subnormals are normal in f32: no flushing question on any backend.
        await bench.checkEveryBackend(() => {
          const x = bench.engine.tensor(bitsA, [a.length]);
          const y = bench.engine.tensor(bitsB, [b.length]);
          return { op: { op: 'add', a: x, b: y }, inputs: [x, y] };
        }, F16_OUTPUT);
        await bench.checkEveryBackend(() => {
          const x = bench.engine.tensor(bitsA, [a.length]);
          return { op: { op: 'scale', x, factor: -1.5 }, inputs: [x] };
        }, F16_OUTPUT);
      }),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);

  it('q4_0 blocks with corrupt scales and any nibbles: dequantize and a mat-vec agree everywhere', async () => {
    const scaleBits = fc.constantFrom(0x7e00, 0x7c00, 0x0001, 0x3c00, 0x0000, 0xbc00, 0x2e66);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.infiniteStream(fc.tuple(scaleBits, fc.uint8Array({ minLength: 16, maxLength: 16 }))), async (rows, blocksPerRow, blocks) => {
        const count = rows * blocksPerRow;
        const bytes = new Uint8Array(count * 18);
        let b = 0;
        for (const [scale, nibbles] of blocks) {
          if (b === count) break;
          bytes[b * 18] = scale & 0xff;
          bytes[b * 18 + 1] = scale >> 8;
          bytes.set(nibbles, b * 18 + 2);
          b++;
        }
        const k = blocksPerRow * 32;
        await bench.checkEveryBackend(() => {
          const w = bench.engine.tensor(bytes, [rows, k], 'q4_0');
          return { op: { op: 'dequantize', x: w }, inputs: [w] };
        }, ONE_F32_ROUNDING);
        await bench.checkEveryBackend(() => {
          const w = bench.engine.tensor(bytes, [rows, k], 'q4_0');
          const x = bench.engine.tensor(Float32Array.from({ length: k }, (_, i) => ((i % 9) - 4) / 4), [1, k]);
          return { op: { op: 'quantizedMatmul', x, w }, inputs: [w, x] };
        }, { abs: f32Dot(k).abs * 64, rel: 16 * EPS32 }, 'non-finite');
      }),
      RUNS,
    );
  }, PROPERTY_TIMEOUT_MS);
});

describe('invalid input is a typed error naming the argument, never a crash', () => {
  it('mismatched, negative, fractional or enormous shapes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), async (m, k, j) => {
        const a = bench.engine.tensor(new Float32Array(m * k), [m, k]);
        const b = bench.engine.tensor(new Float32Array((k + j) * 3), [k + j, 3]);
        const error = await bench.engine.run({ op: 'matmul', a, b }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error instanceof InvalidArgumentError ? error.argument : '').toMatch(/^matmul\./);
        a.dispose();
        b.dispose();
      }),
      RUNS,
    );
    for (const shape of [[-1, 4], [2.5, 2], [2 ** 40, 2 ** 40], [Number.NaN]]) {
      const thrown = (() => {
        try {
          bench.engine.tensor(new Float32Array(4), shape);
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect(thrown instanceof InvalidArgumentError ? thrown.argument : '').toMatch(/^tensor\.shape/);
    }
  });

  it('topK with k out of range, softmax of a 0-d tensor, data of the wrong length', async () => {
    const x = bench.engine.tensor(new Float32Array(10), [2, 5]);
    await expect(bench.engine.run({ op: 'topK', x, k: 6 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(bench.engine.run({ op: 'topK', x, k: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(() => bench.engine.tensor(new Float32Array(7), [2, 4])).toThrow(InvalidArgumentError);
    x.dispose();
  });
});
