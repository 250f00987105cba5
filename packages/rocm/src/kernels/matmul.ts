// matmul: native-rocm/kernels/matmul.hip (matmul_f32, matmul_f16); the grid limits the output columns.
import { dim, lastDim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const F32 = nativeParams({ m: 'dim', n: 'dim', k: 'dim', variant: 'dim?' });
const F16 = nativeParams({ m: 'dim', n: 'dim', k: 'dim' });

/** The ROCm backend's matmul. */
export const matmulKernel: RocmKernel<'matmul'> = {
  natives: { matmul_f32: F32, matmul_f16: F16 },
  nativeId: (op) => `matmul_${op.a.dtype}`,
  encode(op) {
    const params = { m: dim(op.a, 0), k: dim(op.a, 1), n: dim(op.b, 1) };
    return op.a.dtype === 'f16'
      ? nativeCall(F16, 'matmul_f16', [op.a, op.b], params)
      : nativeCall(F32, 'matmul_f32', [op.a, op.b], params);
  },
  refuse(op, limits) {
    const n = lastDim(op.b);
    const max = op.a.dtype === 'f16' ? limits.native.matmulMaxColumnsF16 : limits.native.matmulMaxColumnsF32;
    return n > max ? `matmul with ${n} output columns exceeds the grid limit (${max})` : undefined;
  },
};
