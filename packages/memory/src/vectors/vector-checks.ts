// Input checks shared by VectorOps and BatchEngine: every bad input becomes an InvalidArgumentError naming the
// argument, the value and the rule it broke.
import { InvalidArgumentError } from '@tandem/core';

/** Throws unless `dim` is a positive integer. */
export function checkDim(argument: string, dim: number): void {
  if (!Number.isInteger(dim) || dim < 1) throw new InvalidArgumentError(argument, dim, 'must be an integer >= 1');
}

/** Throws unless `values` holds a whole number of `dim`-float rows; returns the row count. */
export function rowCount(argument: string, values: Float32Array, dim: number): number {
  if (!(values instanceof Float32Array))
    throw new InvalidArgumentError(argument, typeof values, 'must be a Float32Array');
  if (values.length % dim !== 0) {
    throw new InvalidArgumentError(`${argument}.length`, values.length, `must be a multiple of the dimension (${dim})`);
  }
  return values.length / dim;
}

/**
 * Euclidean norm of row `row` (float64); throws when the row holds a NaN or an infinity, or is all zeros
 * (cosine similarity is undefined for a zero vector).
 */
export function checkedRowNorm(argument: string, values: Float32Array, row: number, dim: number): number {
  const base = row * dim;
  let squares = 0;
  for (let c = 0; c < dim; c++) {
    const v = values[base + c] ?? 0;
    if (!Number.isFinite(v))
      throw new InvalidArgumentError(`${argument}[${base + c}]`, v, `must be finite (row ${row}, column ${c})`);
    squares += v * v;
  }
  if (squares === 0)
    throw new InvalidArgumentError(
      `${argument}[row ${row}]`,
      'a zero vector',
      'must have a non-zero norm (cosine similarity is undefined for it)',
    );
  return Math.sqrt(squares);
}

/** Throws unless every row of `values` is finite and non-zero. */
export function checkRows(argument: string, values: Float32Array, rows: number, dim: number): void {
  for (let r = 0; r < rows; r++) checkedRowNorm(argument, values, r, dim);
}

/** Throws unless k is an integer in [1, count]. */
export function checkK(argument: string, k: number, count: number): void {
  if (!Number.isInteger(k) || k < 1 || k > count)
    throw new InvalidArgumentError(argument, k, `must be an integer in [1, ${count}] (the stored vector count)`);
}
