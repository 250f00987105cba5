// topK: the k largest values of each row, descending. Ties go to the lower index; NaN ranks below -Infinity
// (so NaNs are picked last, lowest index first).
import { InvalidArgumentError } from '@tandem/core';
import { dim, expectCount, expectLength, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/** The k best of each row: values [rows, k] and their column indices [rows, k]. */
export interface TopKResult {
  /** Selected values, best first. */
  readonly values: Float32Array;
  /** Column index of each selected value. */
  readonly indices: Int32Array;
}

/** True when value `a` at index `ia` ranks before value `b` at index `ib` (descending, NaN last, ties by index). */
export function ranksBefore(a: number, ia: number, b: number, ib: number): boolean {
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN !== bNaN) return bNaN;
  if (!aNaN && a !== b) return a > b;
  return ia < ib;
}

/** The k largest values of each row of x [rows, n], with their indices. */
export function topK(x: Float32Array, rows: number, n: number, k: number): TopKResult {
  expectCount('topK.rows', rows);
  expectCount('topK.n', n);
  expectLength('topK.x', x, rows * n);
  if (!Number.isInteger(k) || k < 0 || k > n)
    throw new InvalidArgumentError('topK.k', k, `must be an integer in [0, ${n}]`);
  const values = new Float32Array(rows * k);
  const indices = new Int32Array(rows * k);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let r = 0; r < rows; r++) {
    const base = r * n;
    const value = (i: number): number => x[base + i] ?? 0;
    const sorted = [...order].sort((i, j) => (ranksBefore(value(i), i, value(j), j) ? -1 : 1));
    for (let p = 0; p < k; p++) {
      const i = sorted[p] ?? 0;
      values[r * k + p] = value(i);
      indices[r * k + p] = i;
    }
  }
  return { values, indices };
}

/** The reference's topK (a row's index order and its sorted copy as scratch). */
export const topKKernel: ReferenceKernel<'topK'> = {
  run(op) {
    const rows = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
    const { values, indices } = topK(f32(op.x, 'topK.x'), rows, dim(op.x, -1), op.k);
    return [bytesOf(values), bytesOf(indices)];
  },
  scratchBytes: (op) => 16 * dim(op.x, -1),
};
