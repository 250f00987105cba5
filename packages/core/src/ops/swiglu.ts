import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, F32, fail, outBytesOf, outElemsOf, rows } from '../op-rules.ts';
import { sameShape } from '../shape.ts';

/** silu(gate) * up, the Llama MLP's gating. */
export const swiglu = defineOp({
  id: 'swiglu',
  doc: "silu(gate) * up, the Llama MLP's gating.",
  batchDoc: 'rows of gate (every dimension but the last)',
  inputs: {
    /** Gate projection. */
    gate: { dtypes: F32 },
    /** Up projection, same shape as gate. */
    up: { dtypes: F32 },
  },
  params: {},
  map: (op, fn) => ({ op: 'swiglu', gate: fn(op.gate, 'gate'), up: fn(op.up, 'up') }),
  outputs(op) {
    if (!sameShape(op.gate.shape, op.up.shape))
      fail('swiglu', 'up.shape', [...op.up.shape], `must equal gate.shape [${op.gate.shape.join(', ')}]`);
    return [{ dtype: 'f32', shape: op.gate.shape }];
  },
  work: (op, outputs) => ({
    flops: outElemsOf(outputs) * 5,
    bytes: bytesOf(op.gate) + bytesOf(op.up) + outBytesOf(outputs),
    batch: rows(op.gate),
  }),
});

/** A swiglu over tensor references T. */
export type SwigluOp<T> = OpShape<'swiglu', typeof swiglu.inputs, typeof swiglu.params, T>;
