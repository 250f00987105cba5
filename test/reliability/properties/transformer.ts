// Properties of the transformer ops: softmax and rmsNorm rows (masked entries included), rope in both pairings,
// attention with grouped KV heads, causal or not.
import fc from 'fast-check';
import type { RopeMode } from '@tandem/core';
import { EPS32 } from '../../conformance/case.ts';
import type { OpProperty } from '../property-support.ts';
import { f32 } from './elementwise.ts';
import { size, unitScale, values, wide } from './values.ts';

/** Rows of width 1..70 or at a workgroup edge, unit-scale values, about one in ten masked (-Infinity). */
const rows = fc
  .tuple(
    fc.integer({ min: 1, max: 4 }),
    size(70).map((w) => Math.max(1, w)),
  )
  .chain(([count, width]) =>
    fc.tuple(
      fc.constant([count, width] as const),
      values(
        fc.oneof({ arbitrary: unitScale, weight: 9 }, { arbitrary: fc.constant(-Infinity), weight: 1 }),
        count * width,
      ),
    ),
  );

/** softmax (a few ulp per exp and sum) and rmsNorm (masked entries read as 0) of the same rows. */
export const softmaxRmsNorm: OpProperty<readonly [readonly [number, number], number[]]> = {
  name: 'softmax and rmsNorm of rows of any width, with masked (-inf) entries',
  input: rows,
  agreements: ([[count, width], x], flush) => [
    {
      op: { op: 'softmax', x: f32(x, [count, width], flush), causal: false },
      tolerance: { abs: 1e-6, rel: 64 * EPS32 },
    },
    {
      op: {
        op: 'rmsNorm',
        x: f32(
          x.map((v) => (Number.isFinite(v) ? v * 64 : 0)),
          [count, width],
          flush,
        ),
        weight: f32(
          x.slice(0, width).map((v) => (Number.isFinite(v) ? v : 1)),
          [width],
          flush,
        ),
        eps: 1e-5,
      },
      tolerance: { abs: 1e-6, rel: 64 * EPS32 },
    },
  ],
  catches: ['zeros', 'off-by-one'],
};

/** Pair partner of element e (within its head) under `mode`. */
function partner(e: number, headDim: number, mode: RopeMode): number {
  const d = e % headDim;
  const base = e - d;
  const half = headDim / 2;
  if (mode === 'interleaved') return base + (d % 2 === 0 ? d + 1 : d - 1);
  return base + (d < half ? d + half : d - half);
}

/**
 * rope: each output is a rotation of its pair (x0, x1) by an angle known to f32 precision, so its error scales with
 * |x0| + |x1| and the position: 1e-4 of the pair below position 32, 2e-3 up to position 96 (the conformance bounds).
 */
export const rope: OpProperty<readonly [readonly [number, number, number, number, RopeMode], number[]]> = {
  name: 'rope of [seq, heads, headDim] (headDim even, up to past 128), both pairings, positions 0..96',
  input: fc
    .tuple(
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 1, max: 3 }),
      size(20, 130).map((d) => 2 * Math.max(1, Math.floor(d / 2))),
      fc.integer({ min: 0, max: 90 }),
      fc.constantFrom<RopeMode>('interleaved', 'neox'),
    )
    .chain((dims) => fc.tuple(fc.constant(dims), values(wide, dims[0] * dims[1] * dims[2]))),
  agreements: ([[seq, heads, headDim, positionOffset, mode], x], flush) => {
    const slack = positionOffset + seq < 32 ? 1e-4 : 2e-3;
    const extra = Float64Array.from(x, (v, e) => slack * (Math.abs(v) + Math.abs(x[partner(e, headDim, mode)] ?? 0)));
    return [
      {
        op: { op: 'rope', x: f32(x, [seq, heads, headDim], flush), positionOffset, base: 10000, mode },
        tolerance: { abs: 1e-30, rel: 0 },
        extra,
      },
    ];
  },
  catches: ['zeros', 'off-by-one'],
};

/** Attention sizes: sq, sk, heads, kvHeads, headDim, causal, scale. */
type AttentionDims = readonly [number, number, number, number, number, boolean, number | undefined];

/** attention with unit-scale q, k, v: logits are dot products of length D, then a softmax and a weighted sum over Sk. */
export const attention: OpProperty<readonly [AttentionDims, number[], number[], number[]]> = {
  name: 'attention of Sq 0..6, Sk 0..20 or at a tile edge, grouped KV heads, D up to past 128, causal or not, explicit scale or not',
  input: fc
    .tuple(
      fc.integer({ min: 0, max: 6 }),
      size(20, 129),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: 2 }),
      size(8, 129).map((d) => Math.max(1, d)),
      fc.boolean(),
      fc.option(fc.constantFrom(0.3, 0.05), { nil: undefined }),
    )
    // causal needs Sq <= Sk (query i sits at position Sk - Sq + i)
    .map(
      ([sq, sk, kvHeads, group, d, causal, scale]): AttentionDims => [
        sq,
        sk,
        kvHeads * group,
        kvHeads,
        d,
        causal && sq <= sk,
        scale,
      ],
    )
    .chain((dims) => {
      const [sq, sk, heads, kvHeads, d] = dims;
      return fc.tuple(
        fc.constant(dims),
        values(unitScale, sq * heads * d),
        values(unitScale, sk * kvHeads * d),
        values(unitScale, sk * kvHeads * d),
      );
    }),
  agreements: ([[sq, sk, heads, kvHeads, d, causal, scale], q, k, v], flush) => [
    {
      op: {
        op: 'attention',
        q: f32(q, [sq, heads, d], flush),
        k: f32(k, [sk, kvHeads, d], flush),
        v: f32(v, [sk, kvHeads, d], flush),
        causal,
        scale,
      },
      // The conformance bound for unit-scale inputs, with the logits' length: errors of D-long f32 dots, then exp.
      tolerance: { abs: 1e-5 + d * 2e-6, rel: 1e-4 },
    },
  ],
  catches: ['zeros', 'off-by-one', 'transposed'],
};
