import { defineOp, type OpShape } from '../op-definition.ts';
import { bytesOf, dim, expectFinite, F32, fail, outBytesOf } from '../op-rules.ts';
import { sameShape } from '../shape.ts';

/** Multi-head scaled dot-product attention with grouped KV heads; a query that sees no key (Sk = 0) gives zeros. */
export const attention = defineOp({
  id: 'attention',
  doc: 'Multi-head scaled dot-product attention with grouped KV heads; a query that sees no key (Sk = 0) gives zeros.',
  batchDoc: 'query positions (Sq, the first dimension of q)',
  inputs: {
    /** Queries [Sq, H, D]. */
    q: { dtypes: F32, ranks: [3] },
    /** Keys [Sk, Hkv, D], H a multiple of Hkv. */
    k: { dtypes: F32, ranks: [3] },
    /** Values [Sk, Hkv, D]. */
    v: { dtypes: F32, ranks: [3] },
  },
  params: {
    /** Query i (absolute position Sk - Sq + i) attends only keys at positions <= its own. */
    causal: 'boolean',
    /** Logit scale; 1/sqrt(D) when omitted. */
    scale: 'number?',
  },
  map: (op, fn) => ({
    op: 'attention',
    q: fn(op.q, 'q'),
    k: fn(op.k, 'k'),
    v: fn(op.v, 'v'),
    causal: op.causal,
    scale: op.scale,
  }),
  outputs(op) {
    const [heads, headDim, kvHeads] = [dim(op.q, 1), dim(op.q, 2), dim(op.k, 1)];
    if (dim(op.k, 2) !== headDim) fail('attention', 'k.shape[2]', dim(op.k, 2), `must equal q.shape[2] (${headDim})`);
    if (!sameShape(op.v.shape, op.k.shape))
      fail('attention', 'v.shape', [...op.v.shape], `must equal k.shape [${op.k.shape.join(', ')}]`);
    if (kvHeads === 0 || heads % kvHeads !== 0)
      fail('attention', 'k.shape[1]', kvHeads, `must divide q.shape[1] (${heads})`);
    if (op.causal && dim(op.q, 0) > dim(op.k, 0))
      fail('attention', 'q.shape[0]', dim(op.q, 0), `must be <= k.shape[0] (${dim(op.k, 0)}) with causal: true`);
    if (op.scale !== undefined) expectFinite('attention', 'scale', op.scale);
    return [{ dtype: 'f32', shape: op.q.shape }];
  },
  work(op, outputs) {
    const [sq, h, d, sk] = [dim(op.q, 0), dim(op.q, 1), dim(op.q, 2), dim(op.k, 0)];
    return {
      flops: 4 * sq * sk * h * d,
      bytes: bytesOf(op.q) + bytesOf(op.k) + bytesOf(op.v) + outBytesOf(outputs),
      batch: sq,
    };
  },
});

/** An attention over tensor references T. */
export type AttentionOp<T> = OpShape<'attention', typeof attention.inputs, typeof attention.params, T>;
