// The graph suite's engine: wasm as the CPU and, as the GPU, WebGPU on SwiftShader on this machine (no GPU) or
// the machine's own GPU backends (ROCm, WebGPU on the real adapter) with --gpu.
import type { Engine } from '@tandem/core';
import type { BackendPreference } from '@tandem/graph';
import { createEngine } from 'tandem';

/** The engine and which backends the strategies use. */
export interface GraphBench {
  /** Engine with every backend this host has. */
  readonly engine: Engine;
  /** Backends 'cpu-only' / 'gpu-only' use. */
  readonly preference: Required<BackendPreference>;
  /** The GPU's device name. */
  readonly gpuDevice: string;
  /** True when the GPU is a software rasterizer (SwiftShader): slow, so the 7B GPU runs are cut short. */
  readonly softwareGpu: boolean;
}

/** Creates the engine; throws when there is no CPU or no GPU backend (the suite compares both). */
export async function graphBench(gpu: boolean): Promise<GraphBench> {
  if (!gpu) process.env['TANDEM_WEBGPU'] = 'swiftshader';
  const engine = await createEngine({ profile: false }); // benches start cold: a saved profile would change what they measure
  const usable = engine.backends().filter((b) => b.available && b.name !== 'reference');
  const cpu = usable.find((b) => b.kind === 'cpu');
  const gpuBackend = usable.find((b) => b.kind === 'gpu');
  if (cpu === undefined || gpuBackend === undefined) {
    const seen = engine
      .backends()
      .map((b) => `${b.name}: ${b.available ? 'ok' : (b.unavailableReason ?? 'unavailable')}`);
    await engine.dispose();
    throw new Error(`the graph suite needs a CPU and a GPU backend (${seen.join('; ')})`);
  }
  const device = gpuBackend.device ?? gpuBackend.name;
  return {
    engine,
    preference: { cpuBackend: cpu.name, gpuBackend: gpuBackend.name },
    gpuDevice: device,
    softwareGpu: /swiftshader|llvmpipe|lavapipe/i.test(device),
  };
}
