// softmax over the last dimension, float64 max / exp / denominator. Masked entries count as -inf; a row whose
// entries are all -inf (or masked) comes out as zeros rather than NaN.
import { InvalidArgumentError } from '@tandem/core';
import { dim, expectCount, f32, type ReferenceKernel } from '../kernel-support.ts';
import { bytesOf } from '../bytes.ts';

/**
 * Row-wise softmax of x, a batch of [rows, cols] matrices (x.length a multiple of rows * cols).
 * With `causal`, row r of each matrix keeps columns c <= r + (cols - rows) and masks the rest.
 */
export function softmax(x: Float32Array, rows: number, cols: number, causal: boolean): Float32Array {
  expectCount('softmax.rows', rows);
  expectCount('softmax.cols', cols);
  const out = new Float32Array(x.length);
  const matrix = rows * cols;
  if (matrix === 0) {
    if (x.length !== 0) throw new InvalidArgumentError('softmax.x.length', x.length, 'must be 0 when rows * cols is 0');
    return out;
  }
  if (x.length % matrix !== 0)
    throw new InvalidArgumentError('softmax.x.length', x.length, `must be a multiple of rows * cols (${matrix})`);
  const totalRows = x.length / cols;
  for (let row = 0; row < totalRows; row++) {
    const r = row % rows;
    const limit = causal ? Math.max(0, Math.min(cols, r + (cols - rows) + 1)) : cols;
    softmaxRow(x, out, row * cols, limit);
  }
  return out;
}

/** Softmax of x[base .. base + limit) into out (entries from limit to the row's end stay 0). */
function softmaxRow(x: Float32Array, out: Float32Array, base: number, limit: number): void {
  let max = -Infinity;
  for (let c = 0; c < limit; c++) max = Math.max(max, x[base + c] ?? 0);
  if (max === -Infinity) return; // every kept entry is -inf (or nothing is kept): zeros
  let sum = 0;
  for (let c = 0; c < limit; c++) sum += Math.exp((x[base + c] ?? 0) - max);
  for (let c = 0; c < limit; c++) out[base + c] = Math.exp((x[base + c] ?? 0) - max) / sum;
}

/** The reference's softmax. */
export const softmaxKernel: ReferenceKernel<'softmax'> = {
  run(op) {
    const rows = op.x.shape.length >= 2 ? dim(op.x, -2) : 1;
    return [bytesOf(softmax(f32(op.x, 'softmax.x'), rows, dim(op.x, -1), op.causal))];
  },
};
