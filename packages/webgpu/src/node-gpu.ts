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

/** dawn.node GPUs made so far in this process, by their flags. */
const gpusByFlags = new Map<string, Promise<GPU>>();

/**
 * Loads dawn.node and returns its GPU for `flags` (Dawn's, e.g. 'backend=vulkan'); rejects if it can't load.
 * One GPU per set of flags per process, kept for the process's life: a second dawn.node instance in one process,
 * or one garbage-collected while its threads run, aborted the process natively here (futex error,
 * "terminate called after throwing std::system_error"), which no JS code can catch. Devices stay separate.
 */
export function createNodeGpu(flags: readonly string[] = DEFAULT_DAWN_FLAGS): Promise<GPU> {
  const key = flags.join('\n');
  let gpu = gpusByFlags.get(key);
  if (gpu === undefined) {
    gpu = loadDawn(flags);
    gpusByFlags.set(key, gpu);
    gpu.catch(() => gpusByFlags.delete(key)); // a failed load may be retried
  }
  return gpu;
}

async function loadDawn(flags: readonly string[]): Promise<GPU> {
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
