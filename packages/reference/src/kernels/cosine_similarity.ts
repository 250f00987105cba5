// cosineSimilarity: each query against each target in float64, with the op's rules for special vectors (the one
// definition every backend follows; see CosineSimilarityOp in packages/core/src/ops.ts):
//   1. a NaN in either vector -> NaN;
//   2. else a zero vector (every entry +-0) on either side -> 0;
//   3. else an infinity in either vector -> NaN (such a vector has no direction);
//   4. else q . t / (|q| |t|). Float64 holds every square of an f32 value, so this does not depend on the vectors'
//      lengths (1e-30 and 3e38 vectors score like unit ones).
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** What a row is, for the special-value rules above. */
type RowKind = 'finite' | 'zero' | 'infinite' | 'nan';

/** queries [q, d] x targets [t, d] -> [q, t] cosine similarities. */
export function cosineSimilarity(
  queries: Float32Array,
  targets: Float32Array,
  q: number,
  t: number,
  d: number,
): Float32Array {
  expectCount('cosineSimilarity.q', q);
  expectCount('cosineSimilarity.t', t);
  expectCount('cosineSimilarity.d', d);
  expectLength('cosineSimilarity.queries', queries, q * d);
  expectLength('cosineSimilarity.targets', targets, t * d);
  const targetNorms = new Float64Array(t);
  const targetKinds: RowKind[] = [];
  for (let j = 0; j < t; j++) {
    targetKinds.push(kindOf(targets, j * d, d));
    targetNorms[j] = norm(targets, j * d, d);
  }
  const out = new Float32Array(q * t);
  for (let i = 0; i < q; i++) {
    const queryKind = kindOf(queries, i * d, d);
    const queryNorm = norm(queries, i * d, d);
    for (let j = 0; j < t; j++) {
      const special = specialScore(queryKind, targetKinds[j] ?? 'nan');
      if (special !== undefined) {
        out[i * t + j] = special;
        continue;
      }
      let dot = 0;
      for (let c = 0; c < d; c++) dot += (queries[i * d + c] ?? 0) * (targets[j * d + c] ?? 0);
      out[i * t + j] = dot / (queryNorm * (targetNorms[j] ?? 0));
    }
  }
  return out;
}

/** The score rules 1-3 give for a pair of row kinds, or undefined when both rows are finite and non-zero. */
function specialScore(a: RowKind, b: RowKind): number | undefined {
  if (a === 'nan' || b === 'nan') return Number.NaN;
  if (a === 'zero' || b === 'zero') return 0;
  if (a === 'infinite' || b === 'infinite') return Number.NaN;
  return undefined;
}

/** Whether values[base .. base + d) holds a NaN, else an infinity, else is all zeros, else is finite and non-zero. */
function kindOf(values: Float32Array, base: number, d: number): RowKind {
  let infinite = false;
  let zero = true;
  for (let c = 0; c < d; c++) {
    const v = values[base + c] ?? 0;
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) infinite = true;
    if (v !== 0) zero = false;
  }
  if (infinite) return 'infinite';
  return zero ? 'zero' : 'finite';
}

/** Euclidean norm of values[base .. base + d). */
function norm(values: Float32Array, base: number, d: number): number {
  let squares = 0;
  for (let c = 0; c < d; c++) squares += (values[base + c] ?? 0) ** 2;
  return Math.sqrt(squares);
}

/** The reference's cosineSimilarity (float64 target norms as scratch). */
export const cosineSimilarityKernel: ReferenceKernel<'cosineSimilarity'> = {
  run(op) {
    const queries = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
    return [
      bytesOf(
        cosineSimilarity(
          f32(op.queries, 'cosineSimilarity.queries'),
          f32(op.targets, 'cosineSimilarity.targets'),
          queries,
          dim(op.targets, 0),
          dim(op.targets, 1),
        ),
      ),
    ];
  },
  scratchBytes: (op) => 8 * dim(op.targets, 0),
};
