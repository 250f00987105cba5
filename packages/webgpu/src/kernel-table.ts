// The WebGPU backend's kernel table: at most one kernel per op (an op without one is not capable, and running it
// is an error), each in kernels/<op_id>.ts; the unary elementwise ops all run through one generic kernel.
import { unaryKernelTable, type OpKind } from '@tandem/core';
import { unaryKernel, type WebGpuKernel } from './kernel-support.ts';
import * as KERNELS from './kernels/index.ts';
/** A kernel table of the WebGPU backend. */
export type WebGpuKernelTable = { readonly [K in OpKind]?: WebGpuKernel<K> };

/** Every op the WebGPU backend runs. */
export const WEBGPU_KERNELS: WebGpuKernelTable = { ...unaryKernelTable(unaryKernel), ...KERNELS };
