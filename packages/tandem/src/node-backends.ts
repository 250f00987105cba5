// Which backends a default engine gets in Node: ROCm (the HIP addon, when built and a device exists), WASM,
// WebGPU from Dawn (the `webgpu` package), and the reference as the last resort. Set
// TANDEM_WEBGPU=swiftshader to run it on SwiftShader (Debian's chromium package) on a machine without a GPU.
import { readEnv } from './env.ts';
import { REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory } from './default-backends.ts';

/** Backends for Node, in preference order. */
export const NODE_BACKENDS: readonly BackendFactory[] = [
  {
    name: 'rocm',
    create: async () => {
      const { RocmBackend } = await import('@tandem/rocm');
      return new RocmBackend();
    },
  },
  WASM_FACTORY,
  {
    name: 'webgpu',
    create: async () => {
      const { createNodeWebGpuBackend, useSwiftShader } = await import('@tandem/webgpu/node');
      if (readEnv('TANDEM_WEBGPU') === 'swiftshader') {
        const software = useSwiftShader();
        if (!software.ok) throw new Error(`TANDEM_WEBGPU=swiftshader: ${software.reason}`);
      }
      return createNodeWebGpuBackend();
    },
  },
  REFERENCE_FACTORY,
];
