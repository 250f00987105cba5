import { binaryElementwise } from '../op-families.ts';
import type { OpShape } from '../op-definition.ts';

/** Elementwise a + b; b is the same shape as a, or broadcast over a's leading dimensions. */
export const add = binaryElementwise(
  'add',
  "Elementwise a + b; b is the same shape as a, or broadcast over a's leading dimensions.",
);

/** An add over tensor references T. */
export type AddOp<T> = OpShape<'add', typeof add.inputs, typeof add.params, T>;
