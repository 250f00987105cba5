// attention (wasm-kernels/attention.ts): rows of (query, head) split across threads.
import { dim, type WasmKernel } from '../kernel-support.ts';
import { splitRange, threadsFor } from '../split.ts';

/** The wasm backend's attention. */
export const attentionKernel: WasmKernel<'attention'> = {
  run(op, outs, ctx) {
    const [sq, heads, headDim, sk, kvHeads] = [dim(op.q, 0), dim(op.q, 1), dim(op.q, 2), dim(op.k, 0), dim(op.k, 1)];
    const scale = op.scale ?? 1 / Math.sqrt(headDim);
    const [q, k, v, out] = [ctx.pointer(op.q), ctx.pointer(op.k), ctx.pointer(op.v), outs[0] ?? 0];
    const rows = sq * heads;
    const threads = threadsFor(ctx.threads, 4 * sq * sk * heads * headDim, rows, 1);
    return ctx.parallel(
      splitRange(rows, threads).map(([r0, r1]) => ({
        name: 'attention_f32',
        args: [
          q,
          k,
          v,
          out,
          sq,
          sk,
          heads,
          kvHeads,
          headDim,
          scale,
          op.causal ? 1 : 0,
          ctx.scratch(ctx.kernels.attention_scratch_bytes(sk), 'attention scores'),
          r0,
          r1,
        ],
      })),
    );
  },
};
