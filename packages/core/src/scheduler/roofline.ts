import type { BackendKind, PerformanceProfile } from '../backend.ts';
import type { OpWork } from '../op-info.ts';

/** Priors for a backend that gives no performance profile: deliberately modest, measurements replace them. */
export const DEFAULT_PROFILES: Readonly<Record<BackendKind, PerformanceProfile>> = {
  // One WASM-SIMD core: ~40 GFLOP/s, ~10 GB/s, a few microseconds per call, shares memory with JS.
  cpu: { flopsPerMs: 4e7, bytesPerMs: 1e7, launchMs: 0.003, transferBytesPerMs: Infinity },
  // A discrete GPU seen from JS: fast arithmetic, but ~100 us per dispatch + readback and ~5 GB/s over the bus.
  gpu: { flopsPerMs: 2e9, bytesPerMs: 3e8, launchMs: 0.1, transferBytesPerMs: 5e6 },
};

/** Roofline time in ms: launch overhead plus the slower of arithmetic and memory traffic. */
export function rooflineMs(work: OpWork, profile: PerformanceProfile): number {
  return profile.launchMs + Math.max(work.flops / profile.flopsPerMs, work.bytes / profile.bytesPerMs);
}
