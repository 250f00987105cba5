// Properties of the search and graph ops: topK (exact: its order is defined), cosineSimilarity with zero rows,
// subnormals, NaN, infinities and rows whose f32 sums of squares under- or overflow, and spreadActivation.
import fc from 'fast-check';
import { EPS32, EXACT, type Tolerance } from '../../conformance/case.ts';
import { hostU32 } from '../../conformance/host-tensor.ts';
import type { OpProperty } from '../property-support.ts';
import { f32 } from './elementwise.ts';
import { size, values } from './values.ts';

/**
 * topK of rows with NaN, infinities, signed zeros and ties: values and indices exactly (descending, ties to the
 * lower index, NaN below -Inf). GPUs see subnormals flushed, as ties with zero.
 */
export const topK: OpProperty<readonly [readonly [number, number], number[], number]> = {
  name: 'topK of rows (widths up to past 256) with NaN, infinities, signed zeros and ties: exact values and indices',
  input: fc
    .tuple(
      fc.integer({ min: 1, max: 3 }),
      size(40, 257).map((n) => Math.max(1, n)),
    )
    .chain(([rows, n]) =>
      fc.tuple(
        fc.constant([rows, n] as const),
        values(
          fc.oneof(
            { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 5 },
            { arbitrary: fc.float({ noNaN: true }), weight: 3 },
            { arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 1e-40), weight: 2 },
          ),
          rows * n,
        ),
        fc.integer({ min: 1, max: n }),
      ),
    ),
  agreements: ([[rows, n], x, k], flush) => [{ op: { op: 'topK', x: f32(x, [rows, n], flush), k }, tolerance: EXACT }],
  catches: ['zeros', 'off-by-one'],
};

/** The cosine bound of test/conformance/cases/search.ts: 1e-6 + 2 d sqrt(d) eps, absolute (scores are in [-1, 1]). */
function cosineTolerance(d: number): Tolerance {
  return { abs: 1e-6 + 2 * d * Math.sqrt(d) * EPS32, rel: 0 };
}

/** Multiples of 1/128 in [-8, 8]. */
const normal = fc.integer({ min: -1024, max: 1024 }).map((i) => i / 128);
/** A non-zero first entry, so that a row is zero only when drawn as one. */
const nonZeroStart = fc.integer({ min: 1, max: 1024 }).chain((i) => fc.constantFrom(i / 128, -i / 128));

/** cosineSimilarity of q x t rows of dimension d (small or at a tile edge), rows drawn from `row`. */
function cosineProperty(
  name: string,
  row: (d: number) => fc.Arbitrary<number[]>,
): OpProperty<readonly [readonly [number, number, number], number[][], number[][]]> {
  return {
    name,
    input: fc
      .tuple(
        fc.integer({ min: 1, max: 4 }),
        size(6, 65).map((t) => Math.max(1, t)),
        size(40, 257).map((d) => Math.max(1, d)),
      )
      .chain(([q, t, d]) =>
        fc.tuple(
          fc.constant([q, t, d] as const),
          fc.array(row(d), { minLength: q, maxLength: q }),
          fc.array(row(d), { minLength: t, maxLength: t }),
        ),
      ),
    agreements: ([[q, t, d], queries, targets], flush) => [
      {
        op: {
          op: 'cosineSimilarity',
          queries: f32(queries.flat(), [q, d], flush),
          targets: f32(targets.flat(), [t, d], flush),
        },
        tolerance: cosineTolerance(d),
      },
    ],
    catches: ['zeros', 'off-by-one', 'transposed'],
  };
}

/** Zero rows (they score 0), subnormal and signed-zero entries. */
export const cosineZeroRows = cosineProperty(
  'cosineSimilarity with zero rows, subnormal and signed-zero entries',
  (d) => {
    const entry = fc.oneof(
      { arbitrary: normal, weight: 9 },
      { arbitrary: fc.constantFrom(1e-40, -1e-40, -0), weight: 1 },
    );
    return fc.oneof(
      { arbitrary: fc.tuple(nonZeroStart, values(entry, d - 1)).map(([first, rest]) => [first, ...rest]), weight: 4 },
      { arbitrary: fc.constant(new Array<number>(d).fill(0)), weight: 1 },
    );
  },
);

/**
 * NaN in either row -> NaN; else a zero row -> 0; else an infinity -> NaN; else the cosine, whatever the rows'
 * lengths: rows scaled from 2^-100 to 2^124 (sums of squares far below f32's smallest normal or above its largest).
 */
export const cosineExtremes = cosineProperty(
  'cosineSimilarity with NaN, infinities and rows whose f32 sums of squares under- or overflow',
  (d) => {
    const entry = fc.oneof(
      { arbitrary: normal, weight: 30 },
      { arbitrary: fc.constantFrom(1e-40, -0), weight: 2 },
      { arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity), weight: 1 },
    );
    const factor = fc.constantFrom(1, 2 ** -100, 1e-30, 1e-20, 1e-10, 1e10, 1e20, 1e30, 2 ** 124);
    return fc.oneof(
      {
        arbitrary: fc
          .tuple(nonZeroStart, values(entry, d - 1), factor)
          .map(([first, rest, f]) => [first, ...rest].map((v) => v * f)),
        weight: 5,
      },
      { arbitrary: fc.constant(new Array<number>(d).fill(0)), weight: 1 },
    );
  },
);

/** A CSR graph: each node's out-edges (target, weight in [0, 1)). */
type Graph = ReadonlyArray<ReadonlyArray<readonly [number, number]>>;

/** Graph sizes: nodes, decay, threshold, iterations. */
type SpreadParams = readonly [number, number, number, number];

/** spreadActivation: f32 sums over in-edges for a few hops, a few ulp per hop (the conformance bound). */
export const spreadActivation: OpProperty<readonly [SpreadParams, Graph, number[]]> = {
  name: 'spreadActivation over random graphs of 1..300 nodes (past one 256-wide workgroup), any decay, threshold and hops',
  input: fc
    .tuple(
      size(40, 257).map((n) => Math.max(1, n)),
      fc.constantFrom(1, 0.8, 0.5, 0.3),
      fc.constantFrom(0, 0.05, 0.3, 0.9),
      fc.integer({ min: 1, max: 4 }),
    )
    .chain((params) => {
      const nodes = params[0];
      const edge = fc.tuple(
        fc.integer({ min: 0, max: nodes - 1 }),
        fc.integer({ min: 0, max: 255 }).map((i) => i / 256),
      );
      const activation = fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 255 }).map((i) => i / 256),
      );
      return fc.tuple(
        fc.constant(params),
        fc.array(fc.array(edge, { maxLength: 6 }), { minLength: nodes, maxLength: nodes }),
        values(activation, nodes),
      );
    }),
  agreements: ([[nodes, decay, threshold, iterations], graph, initial], flush) => {
    const rowPtr = new Uint32Array(nodes + 1);
    graph.forEach((edges, i) => {
      rowPtr[i + 1] = (rowPtr[i] ?? 0) + edges.length;
    });
    const all = graph.flat();
    return [
      {
        op: {
          op: 'spreadActivation',
          rowPtr: hostU32([nodes + 1], rowPtr),
          colIdx: hostU32(
            [all.length],
            Uint32Array.from(all, ([to]) => to),
          ),
          weights: f32(
            all.map(([, w]) => w),
            [all.length],
            flush,
          ),
          initial: f32(initial, [nodes], flush),
          decay,
          threshold,
          iterations,
        },
        tolerance: { abs: 1e-6, rel: 1e-5 },
      },
    ];
  },
  catches: ['zeros', 'off-by-one'],
};
