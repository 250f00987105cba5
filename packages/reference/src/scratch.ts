// What the reference allocates beside an op's outputs while it runs it (the engine counts it against the budget
// before choosing the reference, and run() checks it again before computing).
import { numel, type Op, type TensorSpec } from '@tandem/core';

/** Dimension `i` of a spec (negative counts from the end), 1 past its rank. */
function dim(t: TensorSpec, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

/** Elements of every tensor of an f16 elementwise op or matmul: each is widened to an f32 copy. */
function widened(inputs: readonly TensorSpec[], outputs: readonly TensorSpec[]): number {
  let n = 0;
  for (const t of inputs) n += numel(t.shape);
  for (const t of outputs) n += numel(t.shape);
  return 4 * n;
}

/** Temporary bytes of the reference's kernels for `op`, beside its outputs. O(rank). */
export function referenceScratchBytes(op: Op<TensorSpec>, outputs: readonly TensorSpec[]): number {
  switch (op.op) {
    case 'matmul':
    case 'add':
    case 'mul':
      return op.a.dtype === 'f16' ? widened([op.a, op.b], outputs) : 0;
    case 'scale':
      return op.x.dtype === 'f16' ? widened([op.x], outputs) : 0;
    case 'quantizedMatmul':
      return 4 * dim(op.w, 0) * dim(op.w, 1); // the weights expanded to f32
    case 'attention':
      return 8 * dim(op.k, 0); // one row of float64 weights
    case 'cosineSimilarity':
      return 8 * dim(op.targets, 0); // float64 target norms
    case 'topK':
      return 16 * dim(op.x, -1); // a row's index order and its sorted copy
    case 'spreadActivation':
      return 16 * dim(op.initial, 0); // float64 sums and the f32 activations of a hop
    case 'dequantize':
    case 'softmax':
    case 'rmsNorm':
    case 'rope':
    case 'silu':
    case 'swiglu':
    case 'concat':
      return 0;
  }
}
