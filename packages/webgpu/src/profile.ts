// Roofline priors before any measurement: rough figures by adapter class, refined by the engine's cost model.
import type { PerformanceProfile } from '@tandem/core';
import type { AdapterSummary } from './device-context.ts';

/** Software rasterizers (SwiftShader, lavapipe): about what the tiled matmul measured on SwiftShader, slow launches. */
const SOFTWARE_PROFILE: PerformanceProfile = {
  flopsPerMs: 5e5,
  bytesPerMs: 2e6,
  launchMs: 0.5,
  transferBytesPerMs: 2e6,
};

/** A discrete GPU behind WebGPU: a few TFLOP/s from plain WGSL, hundreds of GB/s, ~0.1 ms per round trip. */
const HARDWARE_PROFILE: PerformanceProfile = {
  flopsPerMs: 5e9,
  bytesPerMs: 3e8,
  launchMs: 0.1,
  transferBytesPerMs: 1e7,
};

/** The prior for an adapter. */
export function performanceProfile(adapter: AdapterSummary): PerformanceProfile {
  return adapter.software ? SOFTWARE_PROFILE : HARDWARE_PROFILE;
}
