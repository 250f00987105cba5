// @tandem/webgpu: the WebGPU backend. Host-neutral: Node's dawn.node setup lives in '@tandem/webgpu/node'.
/// <reference types="@webgpu/types" />
export { WebGpuBackend, type GpuSource, type WebGpuBackendOptions, type WebGpuDeviceDescription } from './backend.ts';
export { WEBGPU_CAPABILITIES } from './capabilities.ts';
export { directWaiter, type GpuWaiter } from './waiter.ts';
export { WEBGPU_KERNELS, type WebGpuKernelTable } from './kernel-table.ts';
export type { WebGpuKernel } from './kernel-support.ts';
export type { KernelSpec, BindingSpec, ParamSpec } from './kernel-spec.ts';
export { WGSL_KERNELS, type ShaderName } from './wgsl-kernels.generated.ts';
