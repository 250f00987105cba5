/// <reference types="@webgpu/types" />
// Which backends a default engine gets in a browser or worker. Each entry is a lazy factory, so a host that lacks a
// backend never loads its code; a factory that throws leaves its backend listed as unavailable with the reason.
// Node has its own list in node-backends.ts (Dawn instead of navigator.gpu, plus ROCm).
import type { BackendKind, CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import type { WasmBackendOptions } from '@tandem/wasm';

/** What a factory may read from createEngine's options. */
export interface FactoryOptions {
  /** Options of the WASM backend (threads, distUrl for the .wasm files, memory cap). */
  readonly wasm?: WasmBackendOptions;
}

/** A backend to try: its name, kind and how to build it. */
export interface BackendFactory {
  /** Backend name, as in telemetry and `{ only: name }`. */
  readonly name: string;
  /** 'gpu' factories are never called under forceCpu (no GPU driver is loaded at all). */
  readonly kind: BackendKind;
  /** Builds it (may load code lazily); throws with a reason that says how to enable it. */
  readonly create: (options: FactoryOptions) => Promise<CapableBackend>;
}

/** navigator.gpu when the page or worker has WebGPU. */
function navigatorGpu(): GPU | undefined {
  const nav: unknown = Reflect.get(globalThis, 'navigator');
  if (typeof nav !== 'object' || nav === null || !('gpu' in nav)) return undefined;
  const gpu: unknown = nav.gpu;
  return isGpu(gpu) ? gpu : undefined;
}

function isGpu(value: unknown): value is GPU {
  return (
    typeof value === 'object' &&
    value !== null &&
    'requestAdapter' in value &&
    typeof value.requestAdapter === 'function'
  );
}

/** The reference backend: plain TypeScript, always present, only the answer of last resort. */
export const REFERENCE_FACTORY: BackendFactory = {
  name: 'reference',
  kind: 'cpu',
  create: async () => new ReferenceBackend({ fallbackOnly: true }),
};

/** The WASM-SIMD backend: the CPU, always there; threads when the host allows shared memory. */
export const WASM_FACTORY: BackendFactory = {
  name: 'wasm',
  kind: 'cpu',
  create: async (options) => {
    const { WasmBackend } = await import('@tandem/wasm');
    return new WasmBackend({ threads: 'auto', ...options.wasm });
  },
};

/** WebGPU through navigator.gpu (pages and workers). */
export const BROWSER_WEBGPU_FACTORY: BackendFactory = {
  name: 'webgpu',
  kind: 'gpu',
  create: async () => {
    const gpu = navigatorGpu();
    if (gpu === undefined) throw new Error('navigator.gpu is not available in this browser or context');
    const { WebGpuBackend } = await import('@tandem/webgpu');
    return new WebGpuBackend({ gpu });
  },
};

/** Backends for browsers and workers, in preference order. */
export const BROWSER_BACKENDS: readonly BackendFactory[] = [WASM_FACTORY, BROWSER_WEBGPU_FACTORY, REFERENCE_FACTORY];
