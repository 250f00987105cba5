// Gets an adapter and a device with the largest limits the adapter offers. Never throws: a machine with no
// WebGPU gets a reason instead.
import { errorMessage } from '@tandem/core';
import { DeviceContext, type AdapterSummary, type DeviceLimits } from './device-context.ts';
import type { GpuWaiter } from './waiter.ts';

/** Optional features the backend turns on when the adapter has them. */
export const WANTED_FEATURES = ['timestamp-query', 'shader-f16'] as const;

/** How to pick the adapter. */
export interface AcquireOptions {
  /** The WebGPU entry point. */
  readonly gpu: GPU;
  /** Waits on GPU promises. */
  readonly waiter: GpuWaiter;
  /** Adapter preference. */
  readonly powerPreference: GPUPowerPreference;
  /** Most bytes kept in the device's buffer pools (default DEFAULT_MAX_POOLED_BYTES). */
  readonly maxPooledBytes?: number;
}

/** A context, or why none could be had. */
export type AcquireResult =
  | { readonly ok: true; readonly context: DeviceContext }
  | { readonly ok: false; readonly reason: string };

/** Requests an adapter and device; resolves { ok: false, reason } on any failure. */
export async function acquireContext(options: AcquireOptions): Promise<AcquireResult> {
  const { gpu, waiter } = options;
  let adapter: GPUAdapter | null;
  try {
    adapter = await waiter.wait(() => gpu.requestAdapter({ powerPreference: options.powerPreference }));
  } catch (error) {
    return { ok: false, reason: `requestAdapter failed: ${errorMessage(error)}` };
  }
  if (adapter === null) return { ok: false, reason: 'no WebGPU adapter (requestAdapter returned null)' };
  const found = adapter;
  const features = WANTED_FEATURES.filter((f) => found.features.has(f));
  const limits = adapterLimits(found.limits);
  let device: GPUDevice;
  try {
    device = await waiter.wait(() =>
      found.requestDevice({ label: 'tandem', requiredFeatures: features, requiredLimits: { ...limits } }),
    );
  } catch (error) {
    return { ok: false, reason: `requestDevice failed: ${errorMessage(error)}` };
  }
  const summary = summarizeAdapter(found.info);
  return { ok: true, context: new DeviceContext(device, limits, features, summary, waiter, options.maxPooledBytes) };
}

function adapterLimits(limits: GPUSupportedLimits): DeviceLimits {
  return {
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    maxBufferSize: limits.maxBufferSize,
    maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
    maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: limits.maxComputeInvocationsPerWorkgroup,
    maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
  };
}

const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|warp|software|basic render/i;

/** Name and software-ness of an adapter from its info. */
export function summarizeAdapter(info: GPUAdapterInfo): AdapterSummary {
  const parts = [info.vendor, info.architecture, info.device, info.description].filter(
    (p) => p !== undefined && p !== '',
  );
  const name = [...new Set(parts)].join(' / ') || 'unknown WebGPU adapter';
  const software = info.isFallbackAdapter === true || SOFTWARE_ADAPTER.test(name);
  return { name, software };
}
