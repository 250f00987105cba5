// Which backends a default engine gets in Node. WebGPU comes from Dawn (the `webgpu` package); set
// TANDEM_WEBGPU=swiftshader to run it on SwiftShader (Debian's chromium package) on a machine without a GPU.
import { readEnv } from './env.ts';
import { REFERENCE_FACTORY, WASM_FACTORY, type BackendFactory } from './default-backends.ts';

/** Backends for Node, in preference order. */
export const NODE_BACKENDS: readonly BackendFactory[] = [
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
