// quantizedMatmul: x [M, K] f32 times Q8_0 / Q4_0 weights [N, K]; one row of x splits the weight rows across threads
// (decode), many rows split the rows of x.
import { dim, type WasmKernel } from '../kernel-support.ts';
import { splitRange, threadsFor } from '../split.ts';

/** The wasm backend's quantizedMatmul. */
export const quantizedMatmulKernel: WasmKernel<'quantizedMatmul'> = {
  run(op, outs, ctx) {
    const [x, w, out] = [ctx.pointer(op.x), ctx.pointer(op.w), outs[0] ?? 0];
    const [m, k, n] = [dim(op.x, 0), dim(op.x, 1), dim(op.w, 0)];
    const q4 = op.w.dtype === 'q4_0';
    const name = q4 ? 'quantized_matmul_q4_0' : 'quantized_matmul_q8_0';
    const rowBytes = (k / 32) * (q4 ? 18 : 34);
    const scratch = (rows: number, cols: number): number =>
      ctx.scratch(ctx.kernels.quantized_matmul_scratch_bytes(rows, k, cols), 'quantized matmul scratch');
    if (m === 1) {
      const threads = threadsFor(ctx.threads, 2 * k * n, n, 64);
      return ctx.parallel(
        splitRange(n, threads, 8).map(([j0, j1]) => ({
          name,
          args: [x, w + j0 * rowBytes, out + j0 * 4, 1, k, j1 - j0, scratch(1, j1 - j0)],
        })),
      );
    }
    const threads = m >= 16 ? threadsFor(ctx.threads, 2 * m * k * n, m, 8) : 1;
    return ctx.parallel(
      splitRange(m, threads, 4).map(([r0, r1]) => ({
        name,
        args: [x + r0 * k * 4, w, out + r0 * n * 4, r1 - r0, k, n, scratch(r1 - r0, n)],
      })),
    );
  },
};
