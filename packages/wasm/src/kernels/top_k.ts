// topK: values and indices of the k largest per row (wasm-kernels/top_k.ts).
import { dim, lastDim, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's topK. */
export const topKKernel: WasmKernel<'topK'> = {
  run(op, outs, ctx) {
    const rows = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
    ctx.kernels.top_k_f32(ctx.pointer(op.x), outs[0] ?? 0, outs[1] ?? 0, rows, lastDim(op.x), op.k);
  },
};
