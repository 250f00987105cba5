// quantizedActivations: 'q8' (native-rocm/kernels/quantized_matmul_q8act.hip): the option reaches the kernel, and
// on the CPU emulation of HIP (skipped when not built) every output stays within the stated bound of the exact
// product: |y - y_exact| <= sum over blocks b of max|x_b| / 254 * sum_b |w| (x rounded to int8 per 32 values),
// while matching, to f32 rounding, the product of the weights with x rounded exactly that way.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  dequantizeFrom,
  Engine,
  InvalidArgumentError,
  quantizeAs,
  type BoundTensor,
  type DType,
  type QuantizedDType,
} from '@tandem/core';
import { encodeOp } from './encode-op.ts';
import { RocmBackend } from './index.ts';
import { requireBackend } from '../../../test/support/requirements.ts';

const EMULATED = fileURLToPath(new URL('../build/emulated/tandem_rocm.node', import.meta.url));

function bound(dtype: DType, shape: number[]): BoundTensor {
  return { dtype, shape, buffer: { backend: 'rocm', id: 1, byteLength: 0 } };
}

/** Seeded values in [-1, 1) (mulberry32). */
function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  if (v - f !== 0.5) return Math.round(v);
  return f % 2 === 0 ? f : f + 1;
}

/** x as the kernel rounds it: d = f32(max|x| / 127), q = round-half-even(f32(x / d)), value d * q. */
function roundedActivations(x: Float32Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let b = 0; b < x.length; b += 32) {
    let amax = 0;
    for (let j = b; j < b + 32; j++) amax = Math.max(amax, Math.abs(x[j] ?? 0));
    const d = Math.fround(amax / 127);
    for (let j = b; j < b + 32; j++) out[j] = amax === 0 ? 0 : d * roundHalfEven(Math.fround((x[j] ?? 0) / d));
  }
  return out;
}

interface Product {
  /** sum_k x[i,k] w[j,k], float64. */
  readonly value: Float64Array;
  /** sum_k |x[i,k] w[j,k]|, the scale of f32 rounding. */
  readonly magnitude: Float64Array;
  /** sum over blocks of max|x| / 254 * sum |w|: the rounding bound of the q8 path. */
  readonly q8Bound: Float64Array;
}

function product(x: ArrayLike<number>, w: Float32Array, m: number, k: number, n: number): Product {
  const value = new Float64Array(m * n);
  const magnitude = new Float64Array(m * n);
  const q8Bound = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      let a = 0;
      let e = 0;
      for (let b = 0; b < k; b += 32) {
        let amax = 0;
        let wAbs = 0;
        for (let p = b; p < b + 32; p++) {
          const xv = x[i * k + p] ?? 0;
          const wv = w[j * k + p] ?? 0;
          s += xv * wv;
          a += Math.abs(xv * wv);
          amax = Math.max(amax, Math.abs(xv));
          wAbs += Math.abs(wv);
        }
        e += (amax / 254) * wAbs;
      }
      value[i * n + j] = s;
      magnitude[i * n + j] = a;
      q8Bound[i * n + j] = e;
    }
  return { value, magnitude, q8Bound };
}

describe('quantizedActivations option', () => {
  it("sets q8Activations on quantizedMatmul only when 'q8' is asked for", () => {
    const op = { op: 'quantizedMatmul', x: bound('f32', [2, 64]), w: bound('q4_0', [7, 64]) } as const;
    expect(encodeOp(op).params).toEqual({ m: 2, k: 64, n: 7 });
    expect(encodeOp(op, { quantizedActivations: 'f32' }).params).toEqual({ m: 2, k: 64, n: 7 });
    expect(encodeOp(op, { quantizedActivations: 'q8' }).params).toEqual({ m: 2, k: 64, n: 7, q8Activations: 1 });
    expect(encodeOp({ op: 'scale', x: bound('f32', [4]), factor: 2 }, { quantizedActivations: 'q8' }).params).toEqual({
      count: 4,
      factor: 2,
    });
  });

  it('rejects an unknown mode with InvalidArgumentError', () => {
    let thrown: unknown;
    try {
      Reflect.construct(RocmBackend, [{ quantizedActivations: 'int4' }]); // as a JavaScript caller could
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect(thrown).toMatchObject({ argument: 'quantizedActivations', value: 'int4' });
  });
});

describe.skipIf(!requireBackend('rocm', existsSync(EMULATED) ? undefined : `no emulated HIP build at ${EMULATED}`))(
  'quantizedActivations q8 on the emulated device',
  () => {
    it('keeps every output of Q4_0 and Q8_0 mat-vecs within the int8 rounding bound', async () => {
      const engine = await Engine.create({
        backends: [new RocmBackend({ addonPath: EMULATED, quantizedActivations: 'q8' })],
      });
      let largestError = 0;
      for (const dtype of ['q4_0', 'q8_0'] satisfies QuantizedDType[]) {
        for (const [m, n, k] of [
          [1, 40, 256],
          [3, 9, 96],
        ] as const) {
          const x = values(m * k, m * 31 + k);
          x[5] = 4; // one large value per first block: that block's step d grows, the others' do not
          const wBytes = quantizeAs(dtype, values(n * k, n * 17 + k));
          const w = dequantizeFrom(dtype, wBytes, n * k);
          const [y] = await engine.run({
            op: 'quantizedMatmul',
            x: engine.tensor(x, [m, k]),
            w: engine.tensor(wBytes, [n, k], dtype),
          });
          const got = (await y?.read()) ?? new Float32Array(0);
          expect(got.length).toBe(m * n);
          const exact = product(x, w, m, k, n);
          const rounded = product(roundedActivations(x), w, m, k, n);
          for (let i = 0; i < m * n; i++) {
            const g = got[i] ?? Number.NaN;
            const slack = 1e-5 * (exact.magnitude[i] ?? 0);
            expect(Math.abs(g - (exact.value[i] ?? 0))).toBeLessThanOrEqual((exact.q8Bound[i] ?? 0) + slack);
            expect(Math.abs(g - (rounded.value[i] ?? 0))).toBeLessThanOrEqual(
              1e-5 * (rounded.magnitude[i] ?? 0) + 1e-12,
            );
            largestError = Math.max(
              largestError,
              Math.abs(g - (exact.value[i] ?? 0)) / ((exact.magnitude[i] ?? 0) + 1e-30),
            );
          }
        }
      }
      // The int8 rounding is visible (far above f32 rounding): the option reached the kernel.
      expect(largestError).toBeGreaterThan(1e-4);
      expect(engine.telemetry.opEvents().every((e) => e.backend === 'rocm' && e.ok)).toBe(true);
      await engine.dispose();
    });

    it('names the mode in describe() and gives NaN rows for a NaN activation', async () => {
      const backend = new RocmBackend({ addonPath: EMULATED, quantizedActivations: 'q8' });
      const engine = await Engine.create({ backends: [backend] });
      expect(backend.describe().features).toContain('quantized-activations:q8');
      const [m, n, k] = [2, 5, 64];
      const x = values(m * k, 3);
      x[k + 3] = Number.NaN; // row 1 only
      const wBytes = quantizeAs('q4_0', values(n * k, 4));
      const [y] = await engine.run({
        op: 'quantizedMatmul',
        x: engine.tensor(x, [m, k]),
        w: engine.tensor(wBytes, [n, k], 'q4_0'),
      });
      const got = Array.from((await y?.read()) ?? []);
      expect(got.slice(0, n).every(Number.isFinite)).toBe(true);
      expect(got.slice(n).every(Number.isNaN)).toBe(true);
      await engine.dispose();
    });
  },
);
