// Runs one validated op through the kernel table (kernels/index.ts): reads inputs through the context and writes the
// kernel results to the output pointers (in the order of core's inferOutputs). An op without a kernel is an error.
import { BackendError, type BoundTensor, type OpKind, type OpOf } from '@tandem/core';
import type { Kernels } from './kernel-exports.ts';
import { WASM_KERNELS } from './kernel-table.ts';
import type { RunContext } from './run-context.ts';

/** Runs `op` writing into `outs` (one pointer per output). */
export async function runOp<K extends OpKind>(
  op: OpOf<K, BoundTensor>,
  outs: readonly number[],
  ctx: RunContext,
): Promise<void> {
  const kernel = WASM_KERNELS[op.op];
  if (kernel === undefined) throw new BackendError('UNSUPPORTED', 'wasm', `${op.op} has no wasm kernel`);
  await kernel.run(op, outs, ctx);
}

/** Why the loaded module cannot run op `kind` (an export it lacks), or undefined. */
export function moduleRefusal(kind: OpKind, kernels: Kernels): string | undefined {
  return WASM_KERNELS[kind]?.refuse?.(kernels);
}
