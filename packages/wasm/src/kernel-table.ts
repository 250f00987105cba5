// The wasm backend's kernel table: at most one kernel per op (an op without one is not capable, and running it
// is an error), each in kernels/<op_id>.ts; the unary elementwise ops all run through one generic kernel.
import { unaryKernelTable, type OpKind } from '@tandem/core';
import { unaryKernel, type WasmKernel } from './kernel-support.ts';
import * as KERNELS from './kernels/index.ts';
/** A kernel table of the wasm backend. */
export type WasmKernelTable = { readonly [K in OpKind]?: WasmKernel<K> };

/** Every op the wasm backend runs. */
export const WASM_KERNELS: WasmKernelTable = { ...unaryKernelTable(unaryKernel), ...KERNELS };
