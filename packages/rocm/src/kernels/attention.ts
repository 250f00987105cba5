// attention: native-rocm/kernels/attention.hip; head dimensions up to attentionDimsPerLane x warpSize.
import { dim, lastDim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({
  sq: 'dim',
  sk: 'dim',
  heads: 'dim',
  kvHeads: 'dim',
  headDim: 'dim',
  causal: 'flag',
  scale: 'number',
});

/** The ROCm backend's attention. */
export const attentionKernel: RocmKernel<'attention'> = {
  natives: { attention_f32: PARAMS },
  nativeId: () => 'attention_f32',
  encode(op) {
    const headDim = dim(op.q, 2);
    const params = {
      sq: dim(op.q, 0),
      sk: dim(op.k, 0),
      heads: dim(op.q, 1),
      kvHeads: dim(op.k, 1),
      headDim,
      causal: op.causal ? 1 : 0,
      scale: op.scale ?? 1 / Math.sqrt(headDim),
    } as const;
    return nativeCall(PARAMS, 'attention_f32', [op.q, op.k, op.v], params);
  },
  refuse(op, limits) {
    const d = lastDim(op.q);
    const max = limits.native.attentionDimsPerLane * limits.warpSize;
    return d > max ? `attention head dimension ${d} exceeds ${max} on this device` : undefined;
  },
};
