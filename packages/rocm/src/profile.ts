// Roofline prior from what the runtime says about the device: FP32 lanes x clock for arithmetic, memory clock x
// bus width for bandwidth, each derated to what hand-written kernels reach. The cost model refines it.
import type { PerformanceProfile } from '@tandem/core';
import type { NativeDeviceInfo } from './addon-api.ts';

/** FP32 FMA lanes per multiprocessor: 128 on NVIDIA Ampere consumer / Ada / Hopper, 64 on A100; CDNA/RDNA CUs 64 (x2 packed or dual-issue). */
function fp32LanesPerUnit(device: NativeDeviceInfo): number {
  if (device.arch.startsWith('sm_')) return device.computeMajor === 8 && device.computeMinor === 0 ? 64 : 128;
  return 128;
}

/** Share of peak arithmetic the tiled f32 matmul reaches, rounded down (docs/decisions.md, issue 29). */
const ARITHMETIC_EFFICIENCY = 0.6;
/** Share of peak memory bandwidth the streaming kernels reach, rounded down (docs/decisions.md, issue 29). */
const MEMORY_EFFICIENCY = 0.8;

/** A device of unknown clocks: a mid-range GPU. */
const FALLBACK: PerformanceProfile = { flopsPerMs: 1e10, bytesPerMs: 5e8, launchMs: 0.05, transferBytesPerMs: 1e7 };

/** The prior for a device. */
export function performanceProfile(device: NativeDeviceInfo): PerformanceProfile {
  const peakFlops = device.multiProcessors * fp32LanesPerUnit(device) * 2 * device.clockKHz * 1e3;
  // DDR/HBM transfer twice per clock.
  const peakBytes = device.memoryClockKHz * 1e3 * 2 * (device.memoryBusWidthBits / 8);
  return {
    flopsPerMs: peakFlops > 0 ? (peakFlops * ARITHMETIC_EFFICIENCY) / 1e3 : FALLBACK.flopsPerMs,
    bytesPerMs: peakBytes > 0 ? (peakBytes * MEMORY_EFFICIENCY) / 1e3 : FALLBACK.bytesPerMs,
    // A queued run goes JS -> worker thread -> GPU -> event -> JS (its median: docs/decisions.md, issue 29). Short ops
    // on an idle queue run inline for less (RocmBackendOptions.inline); the cost model learns each op's own time.
    launchMs: 0.04,
    // Pageable host memory over PCIe: ~10 GB/s.
    transferBytesPerMs: FALLBACK.transferBytesPerMs,
  };
}
