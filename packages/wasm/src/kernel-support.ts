// What the wasm backend's kernels (kernels/<op_id>.ts) share: their table entry's type, dimensions of bound
// tensors, f16 handled as f32 (inputs widened into scratch, results rounded once), and the elementwise families'
// kernels. f16 variants compute in f32, so they are at least as accurate as f16 arithmetic.
import {
  BackendError,
  numel,
  type BoundTensor,
  type KernelReach,
  type OpKind,
  type OpOf,
  type UnaryOpKind,
} from '@tandem/core';
import { unaryExportName, type Kernels } from './kernel-exports.ts';
import type { RunContext } from './run-context.ts';

/** The wasm backend's kernel of op K. */
export interface WasmKernel<K extends OpKind> extends KernelReach {
  /** Writes the op's outputs (one pointer per output, inferOutputs' order); resolves when every thread is done. */
  run(op: OpOf<K, BoundTensor>, outs: readonly number[], ctx: RunContext): Promise<void> | void;
  /** Why the loaded module cannot run the op (an export it lacks), or undefined when it can. */
  refuse?(kernels: Kernels): string | undefined;
}

/** Dimension i of a tensor (negative counts from the end); 1 past the rank. */
export function dim(t: BoundTensor, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

/** The last dimension (1 for a scalar). */
export function lastDim(t: BoundTensor): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

/** A bound f32 input, or an f16 one widened into f32 scratch. */
export function asF32(ctx: RunContext, t: BoundTensor, name: string): number {
  if (t.dtype === 'f32') return ctx.pointer(t);
  const count = numel(t.shape);
  const wide = ctx.scratch(count * 4, `${name} widened to f32`);
  ctx.kernels.dequantize_f16(ctx.pointer(t), wide, count);
  return wide;
}

/** Where an f32 result goes: the output itself, or f32 scratch rounded to f16 by `finish`. */
export function f32Target(
  ctx: RunContext,
  dtype: string,
  out: number,
  count: number,
): { at: number; finish: () => void } {
  if (dtype === 'f32') return { at: out, finish: () => {} };
  const at = ctx.scratch(count * 4, 'f32 result before rounding to f16');
  return { at, finish: () => ctx.kernels.f32_to_f16(at, out, count) };
}

/** add or mul: `kernel(a, b, out, n, bn)` in f32, b repeating every bn values; f16 through f32. */
export function binaryKernel<K extends 'add' | 'mul'>(
  kernel: (kernels: Kernels) => (a: number, b: number, out: number, n: number, bn: number) => void,
): WasmKernel<K> {
  return {
    run(op, outs, ctx) {
      const [n, bn] = [numel(op.a.shape), numel(op.b.shape)];
      const target = f32Target(ctx, op.a.dtype, outs[0] ?? 0, n);
      kernel(ctx.kernels)(asF32(ctx, op.a, 'a'), asF32(ctx, op.b, 'b'), target.at, n, bn);
      target.finish();
    },
  };
}

/** A unary elementwise op (core's unary family): the module's `<op>_f32(x, out, n)`; f16 through f32. */
export function unaryKernel(kind: UnaryOpKind): WasmKernel<UnaryOpKind> {
  return {
    run(op, outs, ctx) {
      const kernel = ctx.kernels.unary.get(kind);
      if (kernel === undefined)
        throw new BackendError(
          'UNSUPPORTED',
          'wasm',
          `${kind}: the kernel module has no export ${unaryExportName(kind)}`,
        );
      const n = numel(op.x.shape);
      const target = f32Target(ctx, op.x.dtype, outs[0] ?? 0, n);
      kernel(asF32(ctx, op.x, 'x'), target.at, n);
      target.finish();
    },
    refuse: (kernels) =>
      kernels.unary.has(kind)
        ? undefined
        : `${kind}: the kernel module has no export ${unaryExportName(kind)} (rebuild it: npm run build -w @tandem/wasm)`,
  };
}
