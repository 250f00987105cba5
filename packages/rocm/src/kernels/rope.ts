// rope: native-rocm/kernels/rope.hip on [seq, heads, headDim].
import { dim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({
  seq: 'dim',
  heads: 'dim',
  headDim: 'dim',
  positionOffset: 'number',
  base: 'number',
  neox: 'flag',
});

/** The ROCm backend's rope. */
export const ropeKernel: RocmKernel<'rope'> = {
  natives: { rope_f32: PARAMS },
  nativeId: () => 'rope_f32',
  encode: (op) =>
    nativeCall(PARAMS, 'rope_f32', [op.x], {
      seq: dim(op.x, 0),
      heads: dim(op.x, 1),
      headDim: dim(op.x, 2),
      positionOffset: op.positionOffset,
      base: op.base,
      neox: op.mode === 'neox' ? 1 : 0,
    }),
};
