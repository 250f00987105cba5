// Node only: WebGPU from the `webgpu` npm package (Dawn), and a backend wired with the throttled waiter.
// Browser bundles import '@tandem/webgpu' and never load this file ('@tandem/webgpu/node').
import { errorMessage } from '@tandem/core';
import { WebGpuBackend, type WebGpuBackendOptions } from './backend.ts';
import { createThrottledWaiter, type ThrottledWaiterOptions } from './node-wait.ts';

export { createThrottledWaiter, type ThrottledWaiterOptions } from './node-wait.ts';
export { useSwiftShader, type SoftwareVulkanResult } from './swiftshader.ts';
export {
  createProcessWebGpuBackend,
  ProcessWebGpuBackend,
  type ProcessDeviceDescription,
  type ProcessWebGpuOptions,
} from './process/process-backend.ts';

/**
 * Dawn flags used by default: timestamp quantization (a browser anti-fingerprinting measure that rounds
 * GPU timestamps to 65.536 us) is turned off, so kernel times of short ops are real.
 */
export const DEFAULT_DAWN_FLAGS: readonly string[] = ['disable-dawn-features=timestamp_quantization'];

/** Loads dawn.node and creates its GPU; `flags` are Dawn's (e.g. 'backend=vulkan'). Rejects if it can't load. */
export async function createNodeGpu(flags: readonly string[] = DEFAULT_DAWN_FLAGS): Promise<GPU> {
  const dawn = await import('webgpu');
  Object.assign(globalThis, dawn.globals);
  return dawn.create([...flags]);
}

/** Options of createNodeWebGpuBackend. */
export interface NodeWebGpuOptions extends Omit<WebGpuBackendOptions, 'gpu'> {
  /** Dawn flags passed to create() (default DEFAULT_DAWN_FLAGS). */
  readonly dawnFlags?: readonly string[];
  /** Tuning of the throttled waiter (ignored when `waiter` is given). */
  readonly throttle?: ThrottledWaiterOptions;
}

/** A WebGpuBackend on dawn.node that loads Dawn on init() and waits without spinning a core. */
export function createNodeWebGpuBackend(options: NodeWebGpuOptions = {}): WebGpuBackend {
  const { dawnFlags = DEFAULT_DAWN_FLAGS, throttle, ...rest } = options;
  let gpu: GPU | undefined;
  return new WebGpuBackend({
    waiter: createThrottledWaiter(throttle),
    ...rest,
    gpu: async () => {
      try {
        gpu ??= await createNodeGpu(dawnFlags);
        return gpu;
      } catch (error) {
        throw new Error(`cannot load the 'webgpu' package (dawn.node): ${errorMessage(error)}`);
      }
    },
  });
}
