import { F32 } from '../op-rules.ts';
import { unaryElementwise } from '../op-families.ts';
import type { OpShape } from '../op-definition.ts';

/** x * sigmoid(x). */
export const silu = unaryElementwise({ id: 'silu', doc: 'x * sigmoid(x).', dtypes: F32, flopsPerElement: 4 });

/** A silu over tensor references T. */
export type SiluOp<T> = OpShape<'silu', typeof silu.inputs, typeof silu.params, T>;
