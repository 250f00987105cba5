// Properties of the dot-product ops (matmul f32 and f16, quantizedMatmul over Q8_0 and Q4_0) and of dequantize.
// A dot product of length k summed in f32 in any order is within k u sum_k |a_ik b_kj| of the exact sum (u = 2^-24);
// each output gets that bound, doubled (k * EPS32 * sum), on top of one f32 rounding of the reference's own value.
import fc from 'fast-check';
import { halfToFloat, quantizeAs, type QuantizedDType } from '@tandem/core';
import type { HostTensor } from '@tandem/reference';
import { EPS32, F16_OUTPUT, ONE_F32_ROUNDING, type Tolerance } from '../../conformance/case.ts';
import { hostF16 } from '../../conformance/host-tensor.ts';
import type { OpProperty } from '../property-support.ts';
import { f32 } from './elementwise.ts';
import { size, values, wide, wideOrSpecial } from './values.ts';

/** Slack of a subnormal product a GPU flushed, per term. */
const FLUSHED_TERM = 2 ** -126;

/** k * EPS32 * sum_k |a_ik b_kj| for each output of a [m, k] x b [k, n]. */
export function dotBound(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const bound = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += Math.abs((a[i * k + p] ?? 0) * (b[p * n + j] ?? 0));
      bound[i * n + j] = k * EPS32 * sum;
    }
  }
  return bound;
}

/** One f32 rounding of the reference, plus flushed-subnormal slack for k terms. */
function dotTolerance(k: number): Tolerance {
  return { abs: ONE_F32_ROUNDING.abs + (k + 1) * FLUSHED_TERM, rel: ONE_F32_ROUNDING.rel };
}

/** [m, k] and [k, n] value lists, sizes small or at tile edges (up to 257). */
const matmulInput = fc
  .tuple(size(17), size(17), size(17))
  .chain(([m, k, n]) =>
    fc.tuple(fc.constant([m, k, n] as const), values(wideOrSpecial, m * k), values(wideOrSpecial, k * n)),
  );

/** matmul f32: every output within its own accumulation bound. */
export const matmulF32: OpProperty<readonly [readonly [number, number, number], number[], number[]]> = {
  name: 'matmul f32 of any M, K, N (0..17 and the tile edges up to 257), special values included, each output within its sum |a_ik b_kj| bound',
  input: matmulInput,
  agreements: ([[m, k, n], a, b], flush) => {
    const ta = f32(a, [m, k], flush);
    const tb = f32(b, [k, n], flush);
    return [
      {
        op: { op: 'matmul', a: ta, b: tb },
        tolerance: dotTolerance(k),
        extra: dotBound(f32Values(ta), f32Values(tb), m, k, n),
      },
    ];
  },
  catches: ['zeros', 'off-by-one', 'transposed'],
};

/** matmul f16 (f16 inputs, f32 accumulation, the result rounded to f16): two f16 ulp plus the accumulation bound. */
export const matmulF16: OpProperty<readonly [readonly [number, number, number], number[], number[]]> = {
  name: "matmul f16 of any M, K, N (0..17 and the tile edges up to 129): two f16 ulp plus each output's accumulation bound",
  input: fc.tuple(size(17, 129), size(17, 129), size(17, 129)).chain(([m, k, n]) =>
    fc.tuple(
      fc.constant([m, k, n] as const),
      values(
        fc.integer({ min: -512, max: 512 }).map((i) => i / 64),
        m * k,
      ),
      values(
        fc.integer({ min: -512, max: 512 }).map((i) => i / 64),
        k * n,
      ),
    ),
  ),
  agreements: ([[m, k, n], a, b]) => {
    // Multiples of 1/64 up to 8: exact in f16, so both sides start from the same values.
    const ta = hostF16([m, k], Float32Array.from(a));
    const tb = hostF16([k, n], Float32Array.from(b));
    return [
      {
        op: { op: 'matmul', a: ta, b: tb },
        tolerance: { abs: F16_OUTPUT.abs, rel: F16_OUTPUT.rel },
        extra: dotBound(a, b, m, k, n),
      },
    ];
  },
  catches: ['zeros', 'off-by-one', 'transposed'],
};

/** The f32 values of an f32 host tensor. */
function f32Values(t: HostTensor): Float32Array {
  return new Float32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 4);
}

/** Zero points of the unsigned-widening kernels (wasm-kernels/quantized_matmul.ts): q8_0 128, q4_0 8. */
const ZERO_POINT: Readonly<Record<QuantizedDType, number>> = { q8_0: 128, q4_0: 8 };

/**
 * The accumulation bound of quantizedMatmul per output: (k + 2) EPS32 sum_k |x_ik| |d| (|q| + 2 zp). Weights expand
 * exactly, but a kernel may sum x (q + zp) and subtract zp sum x per block (unsigned widening, as wasm's does): its
 * f32 error then scales with zp sum |x|, not only with sum |x_ik w_jk| (seen: -0.25 where 0 is exact, K 32, x up to
 * 4070, one non-zero weight).
 */
export function quantizedDotBound(
  x: ArrayLike<number>,
  weights: Uint8Array,
  dtype: QuantizedDType,
  m: number,
  k: number,
  n: number,
): Float64Array {
  const blockBytes = dtype === 'q8_0' ? 34 : 18;
  const zp = ZERO_POINT[dtype];
  const bound = new Float64Array(m * n);
  for (let j = 0; j < n; j++) {
    for (let b = 0; b < k / 32; b++) {
      const at = (j * (k / 32) + b) * blockBytes;
      const d = Math.abs(halfToFloat((weights[at] ?? 0) | ((weights[at + 1] ?? 0) << 8)));
      for (let e = 0; e < 32; e++) {
        const byte =
          dtype === 'q8_0' ? (weights[at + 2 + e] ?? 0) : (weights[at + 2 + (e % 16)] ?? 0) >> (e < 16 ? 0 : 4);
        const q = dtype === 'q8_0' ? (byte << 24) >> 24 : (byte & 0xf) - 8;
        for (let i = 0; i < m; i++)
          bound[i * n + j] =
            (bound[i * n + j] ?? 0) + Math.abs(x[i * k + b * 32 + e] ?? 0) * d * (Math.abs(q) + 2 * zp);
      }
    }
  }
  return bound.map((sum) => (k + 2) * EPS32 * sum);
}

/** quantizedMatmul x [m, k] by ggml-quantized weights [n, k]: each output within quantizedDotBound. */
function quantizedProperty(
  dtype: QuantizedDType,
): OpProperty<readonly [readonly [number, number, number], number[], number[]]> {
  return {
    name: `quantizedMatmul with ${dtype} weights, M 1..9, K up to 9 blocks (crossing 256), N small or at tile edges: each output within its bound`,
    input: fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), size(20, 129))
      .chain(([m, blocks, n]) =>
        fc.tuple(
          fc.constant([m, blocks * 32, n] as const),
          values(wide, m * blocks * 32),
          values(wide, n * blocks * 32),
        ),
      ),
    agreements: ([[m, k, n], x, w], flush) => {
      const weights = quantizeAs(dtype, Float32Array.from(w));
      const tx = f32(x, [m, k], flush);
      return [
        {
          op: { op: 'quantizedMatmul', x: tx, w: { dtype, shape: [n, k], data: weights } },
          tolerance: dotTolerance(k),
          extra: quantizedDotBound(f32Values(tx), weights, dtype, m, k, n),
        },
      ];
    },
    catches: ['zeros', 'off-by-one', 'transposed'],
  };
}

/** Q8_0 weights. */
export const quantizedQ8: OpProperty<readonly [readonly [number, number, number], number[], number[]]> =
  quantizedProperty('q8_0');

/** Q4_0 weights. */
export const quantizedQ4: OpProperty<readonly [readonly [number, number, number], number[], number[]]> =
  quantizedProperty('q4_0');

/** Raw ggml blocks: an f16 scale (its bits given) and the rest of the block's bytes. */
function blocks(blockBytes: number, list: ReadonlyArray<readonly [number, Uint8Array]>): Uint8Array {
  const bytes = new Uint8Array(list.length * blockBytes);
  list.forEach(([scale, rest], b) => {
    bytes[b * blockBytes] = scale & 0xff;
    bytes[b * blockBytes + 1] = scale >> 8;
    bytes.set(rest, b * blockBytes + 2);
  });
  return bytes;
}

/** Scale bits: NaN, infinities, subnormals, zeros and ordinary scales. */
const scaleBits = fc.constantFrom(0x7e00, 0x7c00, 0xfc00, 0x0001, 0x03ff, 0x3c00, 0x0000, 0x8000, 0xbc00, 0x2e66);

/** dequantize of Q8_0 and Q4_0 blocks with corrupt scales: q * d is one f32 rounding, NaN and infinities as they come. */
export const dequantizeCorrupt: OpProperty<
  readonly [ReadonlyArray<readonly [number, Uint8Array]>, ReadonlyArray<readonly [number, Uint8Array]>]
> = {
  name: 'dequantize of Q8_0 and Q4_0 blocks whose f16 scale is NaN, infinite, subnormal or zero: the same values everywhere',
  input: fc.tuple(
    fc.array(fc.tuple(scaleBits, fc.uint8Array({ minLength: 32, maxLength: 32 })), { minLength: 1, maxLength: 12 }),
    fc.array(fc.tuple(scaleBits, fc.uint8Array({ minLength: 16, maxLength: 16 })), { minLength: 1, maxLength: 12 }),
  ),
  agreements: ([q8, q4]) => [
    {
      op: { op: 'dequantize', x: { dtype: 'q8_0', shape: [q8.length, 32], data: blocks(34, q8) } },
      tolerance: ONE_F32_ROUNDING,
    },
    {
      op: { op: 'dequantize', x: { dtype: 'q4_0', shape: [q4.length, 32], data: blocks(18, q4) } },
      tolerance: ONE_F32_ROUNDING,
    },
  ],
  catches: ['zeros', 'off-by-one'],
};

/** A Q4_0 mat-vec over corrupt blocks: a NaN or infinity wherever the reference has one (rule 'non-finite'). */
export const quantizedCorrupt: OpProperty<readonly [number, number, ReadonlyArray<readonly [number, Uint8Array]>]> = {
  name: 'quantizedMatmul over Q4_0 blocks with corrupt scales and any nibbles: non-finite where the reference is, else within the bound',
  input: fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 })).chain(([rows, perRow]) =>
    fc.tuple(
      fc.constant(rows),
      fc.constant(perRow),
      fc.array(fc.tuple(scaleBits, fc.uint8Array({ minLength: 16, maxLength: 16 })), {
        minLength: rows * perRow,
        maxLength: rows * perRow,
      }),
    ),
  ),
  agreements: ([rows, perRow, list]) => {
    const k = perRow * 32;
    const data = blocks(18, list);
    const x = Float32Array.from({ length: k }, (_, i) => ((i % 9) - 4) / 4);
    const extra = quantizedDotBound(x, data, 'q4_0', 1, k, rows);
    return [
      {
        op: { op: 'quantizedMatmul', x: f32(x, [1, k], false), w: { dtype: 'q4_0', shape: [rows, k], data } },
        tolerance: dotTolerance(k),
        extra,
        rule: 'non-finite',
      },
    ];
  },
  catches: ['zeros', 'off-by-one'],
};
