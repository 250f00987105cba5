// Which backends a default engine gets in Node: ROCm (the optional @tandem/rocm package: its HIP addon, when built and
// a device exists), WASM, WebGPU from Dawn (the optional `webgpu` package), and the reference as the last resort.
// TANDEM_WEBGPU=swiftshader runs WebGPU on SwiftShader (Debian's chromium package) on a machine without a GPU.
import { readEnv } from './env.ts';
import { REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory } from './default-backends.ts';

/** HIP on AMD or NVIDIA GPUs, through @tandem/rocm when it is installed and its addon built. */
export const ROCM_FACTORY: BackendFactory = {
  name: 'rocm',
  kind: 'gpu',
  create: async () => {
    let rocm: typeof import('@tandem/rocm');
    try {
      rocm = await import('@tandem/rocm');
    } catch (error) {
      if (isMissing(error, '@tandem/rocm'))
        throw new Error(
          '@tandem/rocm is not installed: npm install @tandem/rocm, then npx tandem-rocm-build (needs hipcc or nvcc)',
        );
      throw error;
    }
    return new rocm.RocmBackend();
  },
};

/** WebGPU in Node through Dawn (the `webgpu` package, an optional peer of @tandem/webgpu). */
export const NODE_WEBGPU_FACTORY: BackendFactory = {
  name: 'webgpu',
  kind: 'gpu',
  create: async () => {
    const { createNodeWebGpuBackend, useSwiftShader } = await import('@tandem/webgpu/node');
    if (readEnv('TANDEM_WEBGPU') === 'swiftshader') {
      const software = useSwiftShader();
      if (!software.ok) throw new Error(`TANDEM_WEBGPU=swiftshader: ${software.reason}`);
    }
    return createNodeWebGpuBackend();
  },
};

/** Backends for Node, in preference order. */
export const NODE_BACKENDS: readonly BackendFactory[] = [
  ROCM_FACTORY,
  WASM_FACTORY,
  NODE_WEBGPU_FACTORY,
  REFERENCE_FACTORY,
];

/** Whether `error` is Node's "cannot find package `name`" (ESM resolution). */
function isMissing(error: unknown, name: string): boolean {
  return (
    error instanceof Error &&
    Reflect.get(error, 'code') === 'ERR_MODULE_NOT_FOUND' &&
    error.message.includes(`'${name}'`)
  );
}
