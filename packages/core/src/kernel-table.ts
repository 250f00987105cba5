// A backend's kernels as a typed table, at most one per op: `{ [K in OpKind]?: Kernel<K> }`. An op without a kernel
// is one the backend cannot run (capabilitiesOf leaves it out, and a run of it is an error, never a fall-through).
// Limits stay as data beside each kernel; capabilities are derived from the table and the op definitions.
import type { Capability } from './backend.ts';
import type { DType } from './dtype.ts';
import { OP_KINDS, opDefinition, UNARY_OP_KINDS, type OpKind, type UnaryOpKind } from './ops.ts';

/**
 * What a kernel entry may say about its reach, besides how it runs. Limits that depend on the device or the call
 * (sizes, grids, shapes) are each backend's supportsOp, not data here.
 */
export interface KernelReach {
  /** Dtypes of the op's first input this kernel takes; absent: every dtype the op's definition accepts there. */
  readonly dtypes?: readonly DType[];
}

/** Any backend's kernel table, as capabilitiesOf reads it. */
export type KernelReachTable = { readonly [K in OpKind]?: KernelReach };

/** The name of op `kind`'s kernel files in every backend: its id in snake_case (rmsNorm -> rms_norm). */
export function kernelName(kind: OpKind): string {
  return kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The dtypes op `kind`'s definition accepts for its first input (what a capability row lists by default). */
export function firstInputDtypes(kind: OpKind): readonly DType[] {
  return opDefinition(kind).inputSpecs[0]?.dtypes ?? [];
}

/** One capability row per op with a kernel, in OP_KINDS' order. */
export function capabilitiesOf(table: KernelReachTable): Capability[] {
  const rows: Capability[] = [];
  for (const op of OP_KINDS) {
    const kernel = table[op];
    if (kernel === undefined) continue;
    rows.push({ op, dtypes: kernel.dtypes ?? firstInputDtypes(op) });
  }
  return rows;
}

/** A backend's kernels of the unary family: one per unary op, each made by `make` (the backend's generic kernel). */
export function unaryKernelTable<T>(make: (kind: UnaryOpKind) => T): { readonly [K in UnaryOpKind]?: T } {
  const table: { [K in UnaryOpKind]?: T } = {};
  for (const kind of UNARY_OP_KINDS) table[kind] = make(kind);
  return table;
}

/** Every op with its definition's dtypes: what a backend that runs everything (a test double) declares. */
export function defaultCapabilities(): Capability[] {
  return OP_KINDS.map((op) => ({ op, dtypes: firstInputDtypes(op) }));
}
