// Runs one validated op: reads inputs through the context and writes the kernel results to the output pointers
// (in the order of core's inferOutputs). f16 variants widen inputs to f32 scratch, compute in f32, round once.
// matmul, quantizedMatmul, attention and cosineSimilarity split rows across threads when the pool has them and
// the op is big enough; everything else runs on the calling thread.
import { byteLengthOf, numel, type BoundTensor, type Op } from '@tandem/core';
import type { KernelCall } from './kernels.ts';
import type { RunContext } from './run-context.ts';
import { splitRange, threadsFor } from './split.ts';

function dim(t: BoundTensor, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

function lastDim(t: BoundTensor): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

/** A bound f32 input, or an f16 one widened into f32 scratch. */
function asF32(ctx: RunContext, t: BoundTensor, name: string): number {
  if (t.dtype === 'f32') return ctx.pointer(t);
  const count = numel(t.shape);
  const wide = ctx.scratch(count * 4, `${name} widened to f32`);
  ctx.kernels.dequantize_f16(ctx.pointer(t), wide, count);
  return wide;
}

/** Where an f32 result goes: the output itself, or f32 scratch rounded to f16 by `finish`. */
function f32Target(ctx: RunContext, dtype: string, out: number, count: number): { at: number; finish: () => void } {
  if (dtype === 'f32') return { at: out, finish: () => {} };
  const at = ctx.scratch(count * 4, 'f32 result before rounding to f16');
  return { at, finish: () => ctx.kernels.f32_to_f16(at, out, count) };
}

/** Largest packed copy of B one threaded matmul shares between its threads; bigger Bs go by fixed row ranges. */
const SHARED_PACK_MAX_BYTES = 64 << 20;

/**
 * Rows of A one thread claims at a time: about eight claims per thread (a thread that starts late, or a last claim
 * that ends late, then costs little), 16..128 rows, a multiple of 4.
 */
export function chunkRowsFor(m: number, threads: number): number {
  return Math.min(128, Math.max(16, Math.ceil(m / (threads * 8) / 4) * 4));
}

/**
 * C[m, n] = A[m, k] B[k, n] in f32. On several threads, all of them run matmul_f32_shared: B is packed once, jointly,
 * and chunks of rows are claimed as threads come free. Past SHARED_PACK_MAX_BYTES, fixed row ranges (each thread
 * packing its own panels of B).
 */
function matmulF32(ctx: RunContext, a: number, b: number, c: number, m: number, k: number, n: number): Promise<void> {
  const threads = threadsFor(ctx.threads, 2 * m * k * n, m, 16);
  const kernels = ctx.kernels;
  const sharedBytes = kernels.matmul_f32_shared_bytes(k, n);
  if (threads > 1 && k > 0 && n > 0 && sharedBytes <= SHARED_PACK_MAX_BYTES) {
    const shared = ctx.scratch(sharedBytes, 'packed B shared by the threads');
    kernels.matmul_f32_shared_reset(shared);
    const chunkRows = chunkRowsFor(m, threads);
    const calls: KernelCall[] = [];
    for (let t = 0; t < threads; t++) {
      calls.push({ name: 'matmul_f32_shared', args: [a, b, c, m, k, n, shared, ctx.scratch(kernels.matmul_f32_shared_thread_bytes(), 'packed rows of A'), chunkRows] });
    }
    return ctx.parallel(calls);
  }
  const calls: KernelCall[] = splitRange(m, threads, 4).map(([r0, r1]) => ({
    name: 'matmul_f32',
    args: [a + r0 * k * 4, b, c + r0 * n * 4, r1 - r0, k, n, ctx.scratch(kernels.matmul_f32_scratch_bytes(r1 - r0, k, n), 'packed panels')],
  }));
  return ctx.parallel(calls);
}

/** out[m, n] = x[m, k] w[n, k]^T: one row of x splits the weight rows (decode); many rows split the rows of x. */
function quantizedMatmul(ctx: RunContext, x: number, w: number, out: number, m: number, k: number, n: number, q4: boolean): Promise<void> {
  const name = q4 ? 'quantized_matmul_q4_0' : 'quantized_matmul_q8_0';
  const rowBytes = (k / 32) * (q4 ? 18 : 34);
  const scratch = (rows: number, cols: number): number => ctx.scratch(ctx.kernels.quantized_matmul_scratch_bytes(rows, k, cols), 'quantized matmul scratch');
  if (m === 1) {
    const threads = threadsFor(ctx.threads, 2 * k * n, n, 64);
    return ctx.parallel(splitRange(n, threads, 8).map(([j0, j1]) => ({ name, args: [x, w + j0 * rowBytes, out + j0 * 4, 1, k, j1 - j0, scratch(1, j1 - j0)] })));
  }
  const threads = m >= 16 ? threadsFor(ctx.threads, 2 * m * k * n, m, 8) : 1;
  return ctx.parallel(splitRange(m, threads, 4).map(([r0, r1]) => ({ name, args: [x + r0 * k * 4, w, out + r0 * n * 4, r1 - r0, k, n, scratch(r1 - r0, n)] })));
}

/** Runs `op` writing into `outs` (one pointer per output). */
export async function runOp(op: Op<BoundTensor>, outs: readonly number[], ctx: RunContext): Promise<void> {
  const k = ctx.kernels;
  const out = outs[0] ?? 0;
  switch (op.op) {
    case 'matmul': {
      const [m, kk, n] = [dim(op.a, 0), dim(op.a, 1), dim(op.b, 1)];
      const target = f32Target(ctx, op.a.dtype, out, m * n);
      await matmulF32(ctx, asF32(ctx, op.a, 'a'), asF32(ctx, op.b, 'b'), target.at, m, kk, n);
      target.finish();
      return;
    }
    case 'quantizedMatmul':
      return quantizedMatmul(ctx, ctx.pointer(op.x), ctx.pointer(op.w), out, dim(op.x, 0), dim(op.x, 1), dim(op.w, 0), op.w.dtype === 'q4_0');
    case 'dequantize': {
      const count = numel(op.x.shape);
      const kernel = op.x.dtype === 'q4_0' ? k.dequantize_q4_0 : op.x.dtype === 'q8_0' ? k.dequantize_q8_0 : k.dequantize_f16;
      kernel(ctx.pointer(op.x), out, count);
      return;
    }
    case 'add':
    case 'mul': {
      const [n, bn] = [numel(op.a.shape), numel(op.b.shape)];
      const target = f32Target(ctx, op.a.dtype, out, n);
      (op.op === 'add' ? k.add_f32 : k.mul_f32)(asF32(ctx, op.a, 'a'), asF32(ctx, op.b, 'b'), target.at, n, bn);
      target.finish();
      return;
    }
    case 'scale': {
      const n = numel(op.x.shape);
      const target = f32Target(ctx, op.x.dtype, out, n);
      k.scale_f32(asF32(ctx, op.x, 'x'), target.at, n, op.factor);
      target.finish();
      return;
    }
    case 'softmax': {
      const cols = lastDim(op.x);
      const rows = op.x.shape.length >= 2 ? dim(op.x, -2) : 1;
      k.softmax_f32(ctx.pointer(op.x), out, numel(op.x.shape) / cols, rows, cols, op.causal ? 1 : 0);
      return;
    }
    case 'rmsNorm': {
      const n = lastDim(op.x);
      const weight = op.weight === undefined ? 0 : ctx.pointer(op.weight);
      k.rms_norm_f32(ctx.pointer(op.x), weight, out, numel(op.x.shape) / n, n, op.eps);
      return;
    }
    case 'rope': {
      const [seq, heads, headDim] = [dim(op.x, 0), dim(op.x, 1), dim(op.x, 2)];
      const scratch = ctx.scratch(k.rope_scratch_bytes(seq, headDim), 'cos/sin tables');
      k.rope_f32(ctx.pointer(op.x), out, seq, heads, headDim, op.positionOffset, op.base, op.mode === 'neox' ? 1 : 0, scratch);
      return;
    }
    case 'silu':
      k.silu_f32(ctx.pointer(op.x), out, numel(op.x.shape));
      return;
    case 'swiglu':
      k.swiglu_f32(ctx.pointer(op.gate), ctx.pointer(op.up), out, numel(op.gate.shape));
      return;
    case 'attention': {
      const [sq, heads, headDim, sk, kvHeads] = [dim(op.q, 0), dim(op.q, 1), dim(op.q, 2), dim(op.k, 0), dim(op.k, 1)];
      const scale = op.scale ?? 1 / Math.sqrt(headDim);
      const [q, kp, v] = [ctx.pointer(op.q), ctx.pointer(op.k), ctx.pointer(op.v)];
      const rows = sq * heads;
      const threads = threadsFor(ctx.threads, 4 * sq * sk * heads * headDim, rows, 1);
      return ctx.parallel(splitRange(rows, threads).map(([r0, r1]) => ({
        name: 'attention_f32',
        args: [q, kp, v, out, sq, sk, heads, kvHeads, headDim, scale, op.causal ? 1 : 0, ctx.scratch(k.attention_scratch_bytes(sk), 'attention scores'), r0, r1],
      })));
    }
    case 'cosineSimilarity': {
      const d = dim(op.targets, 1);
      const nq = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
      const nt = dim(op.targets, 0);
      const norms = ctx.derived(op.targets, `squared norms of ${nt} rows of ${d}`, nt * 4) ?? { pointer: ctx.scratch(nt * 4, 'target norms'), ready: false };
      const [queries, targets] = [ctx.pointer(op.queries), ctx.pointer(op.targets)];
      const threads = threadsFor(ctx.threads, 2 * nq * nt * d, nt, 256);
      return ctx.parallel(splitRange(nt, threads, 16).map(([t0, t1]) => ({
        name: 'cosine_similarity_f32',
        args: [queries, targets, out, nq, nt, d, t0, t1, ctx.scratch(k.cosine_similarity_scratch_bytes(nq, d), 'query norms and rescaled queries'), norms.pointer, norms.ready ? 1 : 0],
      })));
    }
    case 'topK': {
      const n = lastDim(op.x);
      const rows = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
      k.top_k_f32(ctx.pointer(op.x), out, outs[1] ?? 0, rows, n, op.k);
      return;
    }
    case 'spreadActivation': {
      const [nodes, edges] = [dim(op.initial, 0), dim(op.colIdx, 0)];
      const scratch = ctx.scratch(k.spread_activation_scratch_bytes(nodes), 'activation and sums');
      k.spread_activation_f32(
        ctx.pointer(op.rowPtr), ctx.pointer(op.colIdx), ctx.pointer(op.weights), ctx.pointer(op.initial), out, scratch,
        nodes, edges, op.decay, op.threshold, op.iterations,
      );
      return;
    }
    case 'concat': {
      // Resident in linear memory: one memory.copy per side, no trip through JS arrays.
      const [aBytes, bBytes] = [byteLengthOf(op.a.dtype, numel(op.a.shape)), byteLengthOf(op.b.dtype, numel(op.b.shape))];
      k.concat_bytes(aBytes === 0 ? 0 : ctx.pointer(op.a), aBytes, bBytes === 0 ? 0 : ctx.pointer(op.b), bBytes, out);
      return;
    }
  }
}
