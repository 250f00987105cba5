// The cost model's key of a call (what its measurements are learned under).
import type { Op, TensorSpec } from '../ops.ts';

/**
 * The cost model's key: the op and its inputs' distinct dtypes in order, e.g. 'matmul|f32' or
 * 'quantizedMatmul|f32+q4_0' (the weight format changes how fast each backend is: Q4_0 and Q8_0 mat-vecs sharing one
 * key made the learned corrections of one mislead the other).
 */
export function opKeyOf(spec: Op<TensorSpec>, inputs: ReadonlyArray<{ tensor: TensorSpec }>): string {
  let key = `${spec.op}|${inputs[0]?.tensor.dtype ?? 'f32'}`;
  for (let i = 1; i < inputs.length; i++) {
    const dtype = inputs[i]?.tensor.dtype;
    let seen = false;
    for (let j = 0; j < i && !seen; j++) seen = inputs[j]?.tensor.dtype === dtype;
    if (dtype !== undefined && !seen) key += `+${dtype}`;
  }
  return key;
}
