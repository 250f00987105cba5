// cosineSimilarity, topK and spreadActivation cases: the retrieval side of Tandem.
import type { Rng } from '@tandem/core';
import { EPS32, EXACT, type ConformanceCase, type Tolerance } from '../case.ts';
import { hostF32, hostU32, normalF32, normalValues } from '../host-tensor.ts';

const shapeName = (shape: readonly number[]): string => `[${shape.join(',')}]`;

/** Dot products and norms of length D in f32, then a division: ~D^1.5 eps absolute on values in [-1, 1]. */
const cosineTolerance = (d: number): Tolerance => ({ abs: 1e-6 + 2 * d * Math.sqrt(d) * EPS32, rel: 0 });

/** [queries shape, targets shape] */
const COSINE_SHAPES: ReadonlyArray<readonly [number[], number[]]> = [
  [[3], [5, 3]],
  [
    [1, 1],
    [1, 1],
  ],
  [
    [3, 7],
    [13, 7],
  ],
  [
    [5, 33],
    [65, 33],
  ],
  [
    [2, 4],
    [0, 4],
  ],
  [
    [0, 4],
    [3, 4],
  ],
  [
    [2, 0],
    [3, 0],
  ],
  [
    [8, 768],
    [1000, 768],
  ],
  [
    [2, 148],
    [37, 148],
  ], // 37 vec4s: the vec4 kernel's four-step loads, then its one-step tail
];

function cosineCase([qShape, tShape]: readonly [number[], number[]]): ConformanceCase {
  const d = tShape[1] ?? 0;
  return {
    name: `cosineSimilarity f32 ${shapeName(qShape)} x ${shapeName(tShape)}`,
    build: (rng) => ({ op: 'cosineSimilarity', queries: normalF32(rng, qShape), targets: normalF32(rng, tShape) }),
    tolerance: cosineTolerance(d),
  };
}

/** Query 1 and target 2 are zero vectors: their scores must be 0, not NaN. */
const cosineZeroVectors: ConformanceCase = {
  name: 'cosineSimilarity f32 zero vectors',
  build: (rng) => {
    const queries = normalValues(rng, 3 * 16);
    const targets = normalValues(rng, 5 * 16);
    queries.fill(0, 16, 32);
    targets.fill(0, 32, 48);
    return { op: 'cosineSimilarity', queries: hostF32([3, 16], queries), targets: hostF32([5, 16], targets) };
  },
  tolerance: cosineTolerance(16),
};

// The rules every backend follows for special vectors (CosineSimilarityOp in packages/core/src/ops.ts):
//   1. a NaN anywhere in the query or the target -> NaN;
//   2. else a zero vector (every entry +-0) on either side -> 0;
//   3. else an infinity in either vector -> NaN;
//   4. else the cosine, independent of the vectors' lengths (1e-30 to 3e38 entries score as unit vectors do).
// The cases below use no subnormal entries (a GPU may flush them), and every row kind against every other.

/** A row kind for the special-value cases: normal values scaled by a factor, or a zero / NaN / infinity row. */
type CosineRow = number | 'zero' | 'nan' | 'inf' | 'both-inf';

/** `kinds.length` rows of d values: a number scales normal(0, 1) values; special rows keep normal values elsewhere. */
function cosineRows(rng: Rng, kinds: readonly CosineRow[], d: number): Float32Array {
  const values = normalValues(rng, kinds.length * d);
  kinds.forEach((kind, r) => {
    const row = values.subarray(r * d, (r + 1) * d);
    if (typeof kind === 'number')
      row.forEach((v, c) => {
        row[c] = v * kind;
      });
    else if (kind === 'zero')
      row.forEach((_, c) => {
        row[c] = c % 2 === 0 ? 0 : -0;
      });
    else if (kind === 'nan') row[d >> 1] = Number.NaN;
    else if (kind === 'inf') row[d - 1] = Infinity;
    else {
      row[0] = -Infinity;
      row[d - 1] = Infinity;
    }
  });
  return values;
}

/** Rules 1-3: NaN, zero and infinite rows on both sides, against each other and against ordinary rows. */
function cosineSpecialsCase(queries: number, d: number): ConformanceCase {
  const kinds: CosineRow[] = [1, 'nan', 'zero', 'inf', 'both-inf', 1e-30, 3e37];
  const queryKinds = Array.from({ length: queries }, (_, i) => kinds[i % kinds.length] ?? 1);
  return {
    name: `cosineSimilarity f32 NaN, zero and infinite rows [${queries},${d}] x [${kinds.length},${d}]`,
    build: (rng) => ({
      op: 'cosineSimilarity',
      queries: hostF32([queries, d], cosineRows(rng, queryKinds, d)),
      targets: hostF32([kinds.length, d], cosineRows(rng, kinds, d)),
    }),
    tolerance: cosineTolerance(d),
  };
}

/** Rule 4: rows whose f32 sums of squares underflow (1e-30) or overflow (3e37 x normal values) score as unit rows. */
function cosineScaledCase(qShape: readonly number[], targets: number): ConformanceCase {
  const d = qShape[qShape.length - 1] ?? 1;
  const queries = qShape.length === 1 ? 1 : (qShape[0] ?? 1);
  const factors = [1e-30, 3e37, 1, 1e-19, 1e19, 1e-25, 1e25];
  const targetKinds = Array.from({ length: targets }, (_, i) => factors[i % factors.length] ?? 1);
  const queryKinds = Array.from({ length: queries }, (_, i) => factors[(i * 3) % factors.length] ?? 1);
  return {
    name: `cosineSimilarity f32 rows scaled 1e-30 .. 3e37 ${shapeName([...qShape])} x [${targets},${d}]`,
    build: (rng) => ({
      op: 'cosineSimilarity',
      queries: hostF32([...qShape], cosineRows(rng, queryKinds, d)),
      targets: hostF32([targets, d], cosineRows(rng, targetKinds, d)),
    }),
    tolerance: cosineTolerance(d),
  };
}

/** [shape, k] */
const TOP_K_SHAPES: ReadonlyArray<readonly [number[], number]> = [
  [[1], 1],
  [[7], 3],
  [[4, 13], 13],
  [[5, 33], 1],
  [[2, 65], 64],
  [[8, 1000], 10],
];

function topKCase([shape, k]: readonly [number[], number]): ConformanceCase {
  return {
    name: `topK f32 ${shapeName(shape)} k${k}`,
    build: (rng) => ({ op: 'topK', x: normalF32(rng, shape), k }),
    tolerance: EXACT, // selection copies values
  };
}

/** Small integers: many exact ties, which must resolve to the lower index. */
const topKTies: ConformanceCase = {
  name: 'topK f32 [3,16] k5 with ties',
  build: (rng) => ({
    op: 'topK',
    x: hostF32(
      [3, 16],
      Float32Array.from({ length: 48 }, () => rng.int(0, 4)),
    ),
    k: 5,
  }),
  tolerance: EXACT,
};

/** NaN ranks below -Infinity; k = N forces both to be placed. */
const topKSpecials: ConformanceCase = {
  name: 'topK f32 [2,8] k8 with NaN and infinities',
  build: () => ({
    op: 'topK',
    x: hostF32(
      [2, 8],
      Float32Array.of(1, NaN, -Infinity, Infinity, 0, -0, NaN, 2, -1, -Infinity, 3, NaN, 3, Infinity, 0, -5),
    ),
    k: 8,
  }),
  tolerance: EXACT,
};

/** A random CSR graph: each node gets 0-4 out-edges to random nodes (self loops and repeats allowed). */
function randomGraph(
  rng: Rng,
  nodes: number,
  maxDegree: number,
): { rowPtr: Uint32Array; colIdx: number[]; weights: number[] } {
  const rowPtr = new Uint32Array(nodes + 1);
  const colIdx: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < nodes; i++) {
    const degree = rng.int(0, maxDegree + 1);
    for (let e = 0; e < degree; e++) {
      colIdx.push(rng.int(0, nodes));
      weights.push(rng.next());
    }
    rowPtr[i + 1] = colIdx.length;
  }
  return { rowPtr, colIdx, weights };
}

/** Sums over in-edges in f32 for a few hops: a few ulp per hop, compounding. */
const SPREAD: Tolerance = { abs: 1e-6, rel: 1e-5 };

/** [nodes, max out-degree, decay, threshold, iterations] */
const SPREAD_GRAPHS: ReadonlyArray<readonly [number, number, number, number, number]> = [
  [1, 0, 0.5, 0, 1],
  [20, 4, 0.5, 0.05, 3],
  [33, 3, 1, 0.5, 2],
  [50, 4, 0.8, 100, 4], // threshold above every activation: nothing spreads
  [1000, 8, 0.3, 0.2, 5],
  [0, 0, 0.5, 0, 1],
];

/** A batch of seed vectors: [nodes, max out-degree, decay, threshold, iterations, batch] (initial [batch, nodes]). */
const SPREAD_BATCHES: ReadonlyArray<readonly [number, number, number, number, number, number]> = [
  [20, 4, 0.5, 0.05, 3, 4],
  [200, 8, 0.3, 0.2, 5, 3],
  [50, 4, 0.8, 0, 4, 1], // a batch of one: [1, nodes]
  [1, 0, 0.5, 0, 1, 2],
  [30, 3, 0.5, 0, 2, 0], // no seeds: an empty [0, nodes]
];

function spreadCase([nodes, maxDegree, decay, threshold, iterations, batch]: readonly [
  number,
  number,
  number,
  number,
  number,
  number?,
]): ConformanceCase {
  const seeds = batch ?? 1;
  return {
    name: `spreadActivation ${nodes} nodes degree<=${maxDegree} decay ${decay} threshold ${threshold} x${iterations}${batch === undefined ? '' : ` batch ${batch}`}`,
    build: (rng) => {
      const graph = randomGraph(rng, nodes, maxDegree);
      // Uniform in [0, 1) with about half the nodes silent, so the threshold splits the graph.
      const initial = Float32Array.from({ length: seeds * nodes }, () => (rng.next() < 0.5 ? 0 : rng.next()));
      return {
        op: 'spreadActivation',
        rowPtr: hostU32([nodes + 1], graph.rowPtr),
        colIdx: hostU32([graph.colIdx.length], Uint32Array.from(graph.colIdx)),
        weights: hostF32([graph.weights.length], Float32Array.from(graph.weights)),
        initial: hostF32(batch === undefined ? [nodes] : [batch, nodes], initial),
        decay,
        threshold,
        iterations,
      };
    },
    tolerance: SPREAD,
  };
}

/** Every cosineSimilarity, topK and spreadActivation case. */
export const SEARCH_CASES: readonly ConformanceCase[] = [
  ...COSINE_SHAPES.map(cosineCase),
  cosineZeroVectors,
  cosineSpecialsCase(3, 16),
  cosineSpecialsCase(20, 33), // more than 16 queries: the HIP matmul path
  cosineSpecialsCase(7, 768),
  cosineScaledCase([64], 21),
  cosineScaledCase([5, 768], 30),
  cosineScaledCase([24, 36], 14),
  ...TOP_K_SHAPES.map(topKCase),
  topKTies,
  topKSpecials,
  ...SPREAD_GRAPHS.map(spreadCase),
  ...SPREAD_BATCHES.map(spreadCase),
];
