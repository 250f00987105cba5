// The ROCm backend's kernel table: at most one kernel per op (an op without one is not capable, and running it
// is an error), each in kernels/<op_id>.ts; the unary elementwise ops all run through one generic kernel.
import { unaryKernelTable, type OpKind } from '@tandem/core';
import { unaryKernel, type RocmKernel } from './kernel-support.ts';
import * as KERNELS from './kernels/index.ts';
import type { NativeParamSpec } from './native-params.ts';

/** A kernel table of the ROCm backend. */
export type RocmKernelTable = { readonly [K in OpKind]?: RocmKernel<K> };

/** Every op the ROCm backend runs. */
export const ROCM_KERNELS: RocmKernelTable = { ...unaryKernelTable(unaryKernel), ...KERNELS };

/** Every native kernel the table may call, with the parameters it passes. */
export const NATIVE_PARAMS: ReadonlyMap<string, NativeParamSpec> = new Map(
  Object.values(ROCM_KERNELS).flatMap((kernel) => (kernel === undefined ? [] : Object.entries(kernel.natives))),
);
