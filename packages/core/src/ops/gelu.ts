import { unaryElementwise } from '../op-families.ts';
import type { OpShape } from '../op-definition.ts';
import { FLOATS } from '../op-rules.ts';

/** GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), f32 or f16. */
export const gelu = unaryElementwise({
  id: 'gelu',
  doc: 'GELU in the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), elementwise, f32 or f16.',
  dtypes: FLOATS,
  flopsPerElement: 8,
});

/** A gelu over tensor references T. */
export type GeluOp<T> = OpShape<'gelu', typeof gelu.inputs, typeof gelu.params, T>;
