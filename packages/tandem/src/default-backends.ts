/// <reference types="@webgpu/types" />
// Which backends a default engine gets in a browser or worker. Each entry is a lazy factory, so a host
// that lacks a backend never loads its code; a factory that throws is reported as a notice, not fatal.
// Node has its own list in node-backends.ts (Dawn instead of navigator.gpu, plus ROCm).
import type { CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';

/** A backend to try: its name and how to build it. */
export interface BackendFactory {
  /** Backend name, for messages. */
  readonly name: string;
  /** Builds it (may load code lazily). */
  readonly create: () => Promise<CapableBackend>;
}

/** navigator.gpu when the page or worker has WebGPU. */
function navigatorGpu(): GPU | undefined {
  const nav: unknown = Reflect.get(globalThis, 'navigator');
  if (typeof nav !== 'object' || nav === null || !('gpu' in nav)) return undefined;
  const gpu: unknown = nav.gpu;
  return isGpu(gpu) ? gpu : undefined;
}

function isGpu(value: unknown): value is GPU {
  return typeof value === 'object' && value !== null && 'requestAdapter' in value && typeof value.requestAdapter === 'function';
}

/** The reference backend: plain TypeScript, always present, only the answer of last resort. */
export const REFERENCE_FACTORY: BackendFactory = { name: 'reference', create: async () => new ReferenceBackend({ fallbackOnly: true }) };

/** The WASM-SIMD backend: the CPU, always there; threads when the host allows shared memory. */
export const WASM_FACTORY: BackendFactory = {
  name: 'wasm',
  create: async () => {
    const { WasmBackend } = await import('@tandem/wasm');
    return new WasmBackend({ threads: 'auto' });
  },
};

/** Backends for browsers and workers, in preference order. */
export const BROWSER_BACKENDS: readonly BackendFactory[] = [
  WASM_FACTORY,
  {
    name: 'webgpu',
    create: async () => {
      const gpu = navigatorGpu();
      if (gpu === undefined) throw new Error('navigator.gpu is not available in this browser or context');
      const { WebGpuBackend } = await import('@tandem/webgpu');
      return new WebGpuBackend({ gpu });
    },
  },
  REFERENCE_FACTORY,
];
