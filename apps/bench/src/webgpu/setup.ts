// The engine the suite measures: Tandem's WASM backend and its WebGPU backend on dawn.node (SwiftShader without
// --gpu), both behind one Engine so calls go through the scheduler with `{ only }`, as users call them.
import { Engine, errorMessage } from '@tandem/core';
import type { WebGpuBackend } from '@tandem/webgpu';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { WasmBackend } from '@tandem/wasm';
import type { Outcome } from './guard.ts';

/** The engine and what it runs on. */
export interface BenchEngine {
  /** Engine with the 'wasm' and 'webgpu' backends. */
  readonly engine: Engine;
  /** The WebGPU backend inside it (for its description and raw device). */
  readonly webgpu: WebGpuBackend;
  /** Adapter name. */
  readonly device: string;
  /** Whether the adapter is a software rasterizer. */
  readonly software: boolean;
  /** Whether kernel times come from 'timestamp-query' (else: wall time around submit and completion). */
  readonly timestamps: boolean;
  /** Largest storage binding, bytes. */
  readonly maxStorageBufferBindingSize: number;
  /** How the WASM backend runs (threads). */
  readonly wasmNote: string;
}

/** Builds the engine; { ok: false, reason } when WebGPU cannot start here (no crash). */
export async function createBenchEngine(gpu: boolean): Promise<Outcome<BenchEngine>> {
  if (!gpu) {
    const software = useSwiftShader();
    if (!software.ok) return { ok: false, reason: `no SwiftShader for a run without --gpu: ${software.reason}` };
  }
  try {
    const webgpu = createNodeWebGpuBackend({ maxPooledBytes: 2 ** 31 });
    const wasm = new WasmBackend({ threads: 'auto' });
    const engine = await Engine.create({ backends: [wasm, webgpu] });
    const status = engine.backends().find((b) => b.name === webgpu.name);
    if (status === undefined || !status.available) {
      await engine.dispose();
      return { ok: false, reason: `WebGPU backend unavailable: ${status?.unavailableReason ?? 'not registered'}` };
    }
    const info = webgpu.describe();
    const health = wasm.health();
    return {
      ok: true,
      value: {
        engine,
        webgpu,
        device: info.name,
        software: info.software,
        timestamps: info.features.includes('timestamp-query'),
        maxStorageBufferBindingSize: info.maxStorageBufferBindingSize,
        wasmNote: `wasm threads 'auto' (${health.state === 'healthy' ? 'healthy' : `${health.state}: ${health.reason}`})`,
      },
    };
  } catch (error) {
    return { ok: false, reason: `could not start the engine: ${errorMessage(error)}` };
  }
}
