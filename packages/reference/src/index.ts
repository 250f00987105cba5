export * from './host-tensor.ts';
export * from './bytes.ts';
export * from './compute.ts';
export * from './capabilities.ts';
export * from './reference-backend.ts';
export * from './kernels/index.ts';
export type { ReferenceKernel } from './kernel-support.ts';
