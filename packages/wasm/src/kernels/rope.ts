// rope on [seq, heads, headDim] (wasm-kernels/rope.ts), with cos/sin tables in scratch.
import { dim, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's rope. */
export const ropeKernel: WasmKernel<'rope'> = {
  run(op, outs, ctx) {
    const [seq, heads, headDim] = [dim(op.x, 0), dim(op.x, 1), dim(op.x, 2)];
    const scratch = ctx.scratch(ctx.kernels.rope_scratch_bytes(seq, headDim), 'cos/sin tables');
    ctx.kernels.rope_f32(
      ctx.pointer(op.x),
      outs[0] ?? 0,
      seq,
      heads,
      headDim,
      op.positionOffset,
      op.base,
      op.mode === 'neox' ? 1 : 0,
      scratch,
    );
  },
};
