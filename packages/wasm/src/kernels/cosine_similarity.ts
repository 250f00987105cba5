// cosineSimilarity (wasm-kernels/cosine_similarity.ts): targets split across threads; the targets' squared norms are
// kept with their buffer (ctx.derived) so a search over the same targets computes them once.
import { dim, type WasmKernel } from '../kernel-support.ts';
import { splitRange, threadsFor } from '../split.ts';

/** The wasm backend's cosineSimilarity. */
export const cosineSimilarityKernel: WasmKernel<'cosineSimilarity'> = {
  run(op, outs, ctx) {
    const d = dim(op.targets, 1);
    const nq = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
    const nt = dim(op.targets, 0);
    const norms = ctx.derived(op.targets, `squared norms of ${nt} rows of ${d}`, nt * 4) ?? {
      pointer: ctx.scratch(nt * 4, 'target norms'),
      ready: false,
    };
    const [queries, targets] = [ctx.pointer(op.queries), ctx.pointer(op.targets)];
    const threads = threadsFor(ctx.threads, 2 * nq * nt * d, nt, 256);
    return ctx.parallel(
      splitRange(nt, threads, 16).map(([t0, t1]) => ({
        name: 'cosine_similarity_f32',
        args: [
          queries,
          targets,
          outs[0] ?? 0,
          nq,
          nt,
          d,
          t0,
          t1,
          ctx.scratch(ctx.kernels.cosine_similarity_scratch_bytes(nq, d), 'query norms and rescaled queries'),
          norms.pointer,
          norms.ready ? 1 : 0,
        ],
      })),
    );
  },
};
