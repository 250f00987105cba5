// Node only: WebGPU from the `webgpu` npm package (Dawn), and a backend wired with the throttled waiter.
// Browser bundles import '@tandem/webgpu' and never load this file ('@tandem/webgpu/node').
import { WebGpuBackend, type WebGpuBackendOptions } from './backend.ts';
import { createThrottledWaiter, type ThrottledWaiterOptions } from './node-wait.ts';
import { vulkanLoaderAvailable } from './swiftshader.ts';

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

/** How to get the `webgpu` package, for reasons. */
export const DAWN_INSTALL_HINT = 'npm install webgpu (Dawn for Node: prebuilt for Linux, macOS and Windows)';

async function loadDawn(flags: readonly string[]): Promise<GPU> {
  let dawn: typeof import('webgpu');
  try {
    dawn = await import('webgpu');
  } catch (error) {
    if (Reflect.get(Object(error), 'code') === 'ERR_MODULE_NOT_FOUND')
      throw new Error(`the 'webgpu' package is not installed: ${DAWN_INSTALL_HINT}`);
    throw error;
  }
  // Without a Vulkan loader Dawn prints a warning to stderr on every start and finds no adapter: say why, once.
  if (!flags.includes('backend=opengles') && !vulkanLoaderAvailable()) {
    throw new Error(
      "no Vulkan loader (libvulkan.so.1) on this machine: install libvulkan1 and the GPU's Vulkan driver, or Debian's chromium and set TANDEM_WEBGPU=swiftshader for its software GPU",
    );
  }
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
      gpu ??= await createNodeGpu(dawnFlags);
      return gpu;
    },
  });
}
