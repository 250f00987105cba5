// The plan of any op: dispatches to the planner of its kind.
import type { Op } from '@tandem/core';
import type { DeviceTensor, PlanContext, Step } from '../plan.ts';
import { planAttention } from './attention.ts';
import { planConcat } from './concat.ts';
import { planBinary, planScale, planSilu, planSwiglu } from './elementwise.ts';
import { planSpreadActivation } from './graph.ts';
import { planDequantize, planMatmul, planQuantizedMatmul } from './matmul.ts';
import { planRmsNorm, planRope, planSoftmax } from './normalize.ts';
import { planCosineSimilarity, planTopK } from './search.ts';

/** Steps that compute `op` into `outputs` (allocated by the caller, one per output spec). */
export function planOp(op: Op<DeviceTensor>, outputs: readonly DeviceTensor[], ctx: PlanContext): Step[] {
  const [out, second] = outputs;
  if (out === undefined) throw new Error(`${op.op}: no output buffer`);
  switch (op.op) {
    case 'matmul':
      return planMatmul(op, out);
    case 'quantizedMatmul':
      return planQuantizedMatmul(op, out, ctx);
    case 'dequantize':
      return planDequantize(op, out, ctx);
    case 'add':
    case 'mul':
      return planBinary(op, out, ctx);
    case 'scale':
      return planScale(op, out, ctx);
    case 'silu':
      return planSilu(op, out, ctx);
    case 'swiglu':
      return planSwiglu(op, out, ctx);
    case 'softmax':
      return planSoftmax(op, out, ctx);
    case 'rmsNorm':
      return planRmsNorm(op, out, ctx);
    case 'rope':
      return planRope(op, out, ctx);
    case 'attention':
      return planAttention(op, out, ctx);
    case 'cosineSimilarity':
      return planCosineSimilarity(op, out, ctx);
    case 'topK':
      if (second === undefined) throw new Error('topK: no indices buffer');
      return planTopK(op, out, second, ctx);
    case 'spreadActivation':
      return planSpreadActivation(op, out, ctx);
    case 'concat':
      return planConcat(op, out);
  }
}
