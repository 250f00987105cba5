// Unit-length copies of stored vectors: VectorOps keeps its targets normalised once, at create().
import { checkedRowNorm } from './vector-checks.ts';

/**
 * Each row of `vectors` divided by its Euclidean norm (computed in float64), as a new array; throws
 * InvalidArgumentError for a row holding a NaN or an infinity, or a zero row.
 */
export function normalisedRows(argument: string, vectors: Float32Array, rows: number, dim: number): Float32Array {
  const out = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const inverse = 1 / checkedRowNorm(argument, vectors, r, dim);
    const base = r * dim;
    for (let c = 0; c < dim; c++) out[base + c] = (vectors[base + c] ?? 0) * inverse;
  }
  return out;
}
