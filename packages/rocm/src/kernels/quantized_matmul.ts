// quantizedMatmul: native-rocm/kernels/quantized_matmul.hip (q8_0 and q4_0 weights); with quantizedActivations 'q8'
// the int8-activation path (q8Activations). Past quantizedDirectRows rows it runs as an f32 matmul.
import { dim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ m: 'dim', n: 'dim', k: 'dim', q8Activations: 'flag?', variant: 'dim?' });

/** The ROCm backend's quantizedMatmul. */
export const quantizedMatmulKernel: RocmKernel<'quantizedMatmul'> = {
  natives: { quantized_matmul_q8_0: PARAMS, quantized_matmul_q4_0: PARAMS },
  nativeId: (op) => `quantized_matmul_${op.w.dtype}`,
  encode(op, options) {
    const params = { m: dim(op.x, 0), k: dim(op.x, 1), n: dim(op.w, 0) };
    return nativeCall(
      PARAMS,
      `quantized_matmul_${op.w.dtype}`,
      [op.x, op.w],
      options.quantizedActivations === 'q8' ? { ...params, q8Activations: 1 } : params,
    );
  },
  refuse(op, limits) {
    const m = op.x.shape[0] ?? 1;
    const n = op.w.shape[0] ?? 1;
    return m > limits.native.quantizedDirectRows && n > limits.native.matmulMaxColumnsF32
      ? `quantizedMatmul with ${n} output columns exceeds the grid limit`
      : undefined;
  },
};
