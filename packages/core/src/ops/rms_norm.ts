import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, F32, fail, lastDim, outBytesOf, outElemsOf, rows } from '../op-rules.ts';
import { sameShape } from '../shape.ts';

/** RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight. */
export const rmsNorm = defineOp({
  id: 'rmsNorm',
  doc: 'RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight.',
  batchDoc: 'rows of x (every dimension but the last)',
  inputs: {
    /** Input [..., N]. */
    x: { dtypes: F32, minRank: 1 },
    /** Per-channel gain [N]; omitted means 1. */
    weight: { dtypes: F32, optional: true },
  },
  params: {
    /** Added to the mean square, e.g. 1e-5. */
    eps: 'number',
  },
  map: (op, fn) => ({
    op: 'rmsNorm',
    x: fn(op.x, 'x'),
    weight: op.weight === undefined ? undefined : fn(op.weight, 'weight'),
    eps: op.eps,
  }),
  outputs(op) {
    if (op.weight !== undefined && !sameShape(op.weight.shape, [lastDim(op.x)]))
      fail('rmsNorm', 'weight.shape', [...op.weight.shape], `must be [${lastDim(op.x)}]`);
    if (!(op.eps >= 0) || !Number.isFinite(op.eps)) fail('rmsNorm', 'eps', op.eps, 'must be a finite number >= 0');
    return [{ dtype: 'f32', shape: op.x.shape }];
  },
  work: (op, outputs) => ({
    flops: outElemsOf(outputs) * 5,
    bytes: bytesOf(op.x) + outBytesOf(outputs),
    batch: rows(op.x),
  }),
});

/** An rmsNorm over tensor references T. */
export type RmsNormOp<T> = OpShape<'rmsNorm', typeof rmsNorm.inputs, typeof rmsNorm.params, T>;
