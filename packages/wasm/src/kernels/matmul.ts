// matmul: f32 tiles in wasm-kernels/matmul_f32.ts; f16 widened to f32 and rounded once. Large products split rows
// across threads: all of them run matmul_f32_shared (B packed once, jointly; chunks of rows claimed as threads come
// free), or past SHARED_PACK_MAX_BYTES fixed row ranges (each thread packing its own panels of B).
import type { KernelCall } from '../kernel-exports.ts';
import { asF32, dim, f32Target, type WasmKernel } from '../kernel-support.ts';
import type { RunContext } from '../run-context.ts';
import { splitRange, threadsFor } from '../split.ts';

/** Largest packed copy of B one threaded matmul shares between its threads; bigger Bs go by fixed row ranges. */
const SHARED_PACK_MAX_BYTES = 64 << 20;

/**
 * Rows of A one thread claims at a time: about eight claims per thread (a thread that starts late, or a last claim
 * that ends late, then costs little), 16..128 rows, a multiple of 4.
 */
export function chunkRowsFor(m: number, threads: number): number {
  return Math.min(128, Math.max(16, Math.ceil(m / (threads * 8) / 4) * 4));
}

/** C[m, n] = A[m, k] B[k, n] in f32, on as many threads as pay. */
export function matmulF32(
  ctx: RunContext,
  a: number,
  b: number,
  c: number,
  m: number,
  k: number,
  n: number,
): Promise<void> {
  const threads = threadsFor(ctx.threads, 2 * m * k * n, m, 16);
  const kernels = ctx.kernels;
  const sharedBytes = kernels.matmul_f32_shared_bytes(k, n);
  if (threads > 1 && k > 0 && n > 0 && sharedBytes <= SHARED_PACK_MAX_BYTES) {
    const shared = ctx.scratch(sharedBytes, 'packed B shared by the threads');
    kernels.matmul_f32_shared_reset(shared);
    const chunkRows = chunkRowsFor(m, threads);
    const calls: KernelCall[] = [];
    for (let t = 0; t < threads; t++) {
      calls.push({
        name: 'matmul_f32_shared',
        args: [
          a,
          b,
          c,
          m,
          k,
          n,
          shared,
          ctx.scratch(kernels.matmul_f32_shared_thread_bytes(), 'packed rows of A'),
          chunkRows,
        ],
      });
    }
    return ctx.parallel(calls);
  }
  const calls: KernelCall[] = splitRange(m, threads, 4).map(([r0, r1]) => ({
    name: 'matmul_f32',
    args: [
      a + r0 * k * 4,
      b,
      c + r0 * n * 4,
      r1 - r0,
      k,
      n,
      ctx.scratch(kernels.matmul_f32_scratch_bytes(r1 - r0, k, n), 'packed panels'),
    ],
  }));
  return ctx.parallel(calls);
}

/** The wasm backend's matmul. */
export const matmulKernel: WasmKernel<'matmul'> = {
  async run(op, outs, ctx) {
    const [m, k, n] = [dim(op.a, 0), dim(op.a, 1), dim(op.b, 1)];
    const target = f32Target(ctx, op.a.dtype, outs[0] ?? 0, m * n);
    await matmulF32(ctx, asF32(ctx, op.a, 'a'), asF32(ctx, op.b, 'b'), target.at, m, k, n);
    target.finish();
  },
};
