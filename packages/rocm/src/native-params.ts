// A native kernel's parameters on the TypeScript side: each kernel file (kernels/<op_id>.ts) writes every native
// kernel's parameters once, as a spec whose type types the call; the C++ side writes them once in the kernel's
// field table (native-rocm/kernels/<op_id>.hip). native-params.test.ts compares the two through the addon's
// kernels(), and init() refuses an addon whose kernels take other parameters than these (a stale build).
import type { BoundTensor } from '@tandem/core';
import type { NativeKernelInfo, NativeParamKind } from './addon-api.ts';

/** A native kernel's parameters by name, in the C++ struct's field order. */
export type NativeParamSpec = Readonly<Record<string, NativeParamKind>>;

/** The value of a parameter of kind P. */
type NativeValue<P extends NativeParamKind> = P extends 'flag' | 'flag?' ? 0 | 1 : number;

/** The parameters a call passes for spec S: the optional ones ('?') may be left out. */
export type NativeParamValues<S extends NativeParamSpec> = {
  readonly [K in keyof S as S[K] extends `${string}?` ? never : K]: NativeValue<S[K]>;
} & { readonly [K in keyof S as S[K] extends `${string}?` ? K : never]?: NativeValue<S[K]> };

/** What Device.run receives, minus the output sizes. */
export interface NativeCall {
  /** Native kernel id, e.g. "matmul_f32". */
  readonly kernel: string;
  /** Input tensors in the kernel's order. */
  readonly inputs: readonly BoundTensor[];
  /** Dimensions, factors and flags by name. */
  readonly params: Readonly<Record<string, number>>;
}

/** Declares a native kernel's parameters with their names and kinds kept as literal types. */
export function nativeParams<const S extends NativeParamSpec>(spec: S): S {
  return spec;
}

/** A call of `kernel`, whose parameters are `spec`. */
export function nativeCall<S extends NativeParamSpec>(
  _spec: S,
  kernel: string,
  inputs: readonly BoundTensor[],
  params: NativeParamValues<S>,
): NativeCall {
  const values: Record<string, number> = {};
  for (const [name, value] of Object.entries(params)) if (typeof value === 'number') values[name] = value;
  return { kernel, inputs, params: values };
}

/** Where the addon's kernels take other parameters than the backend passes: one line per kernel that differs. */
export function parameterDrift(
  expected: ReadonlyMap<string, NativeParamSpec>,
  kernels: readonly NativeKernelInfo[],
): string[] {
  const drift: string[] = [];
  for (const kernel of kernels) {
    const mine = expected.get(kernel.name);
    if (mine === undefined) continue;
    const theirs = JSON.stringify(Object.entries(kernel.params));
    const ours = JSON.stringify(Object.entries(mine));
    if (theirs !== ours) drift.push(`${kernel.name} takes ${theirs}, the backend passes ${ours}`);
  }
  return drift;
}
