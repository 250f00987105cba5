import { binaryElementwise } from '../op-families.ts';
import type { OpShape } from '../op-definition.ts';

/** Elementwise a * b; b is the same shape as a, or broadcast over a's leading dimensions. */
export const mul = binaryElementwise(
  'mul',
  "Elementwise a * b; b is the same shape as a, or broadcast over a's leading dimensions.",
);

/** A mul over tensor references T. */
export type MulOp<T> = OpShape<'mul', typeof mul.inputs, typeof mul.params, T>;
