// What an op turns into before it touches the GPU: a list of dispatches and buffer copies.
// Op planners build it from resolved tensors; the executor encodes it into one command buffer.
import type { TensorSpec } from '@tandem/core';
import type { DeviceLimits } from './device-context.ts';
import { packParams, type KernelSpec } from './kernel-spec.ts';
import type { OverrideValues } from './pipeline-cache.ts';

/** A tensor resolved to its device buffer. */
export interface DeviceTensor extends TensorSpec {
  /** The buffer holding it (possibly larger than the tensor: pooled). */
  readonly gpu: GPUBuffer;
}

/** A byte range of a buffer bound on its own (offset a multiple of STORAGE_OFFSET_ALIGNMENT). */
export class BufferRange {
  constructor(
    /** The buffer. */
    readonly buffer: GPUBuffer,
    /** First byte bound. */
    readonly offset: number,
    /** Bytes bound. */
    readonly size: number,
  ) {}
}

/** What a storage binding holds: a whole buffer or a range of one. */
export type StorageBinding = GPUBuffer | BufferRange;

/**
 * An offset alignment every device accepts for storage bindings: WebGPU's minStorageBufferOffsetAlignment is a power
 * of two of at most 256, so a multiple of 256 is aligned on any device.
 */
export const STORAGE_OFFSET_ALIGNMENT = 256;

/** Workgroup counts in x and y. */
export type Grid = readonly [number, number];

/** One compute dispatch, its buffers already in binding order. */
export interface DispatchStep {
  /** Discriminant. */
  readonly kind: 'dispatch';
  /** Which kernel. */
  readonly spec: KernelSpec;
  /** Storage buffers or ranges of them, in @binding order. */
  readonly buffers: readonly StorageBinding[];
  /** Packed uniform block. */
  readonly params: ArrayBuffer;
  /** Override constant values. */
  readonly overrides: OverrideValues;
  /** Workgroups in x and y. */
  readonly grid: Grid;
}

/** A buffer-to-buffer copy of `bytes` bytes from sourceOffset to destinationOffset (both 0 for a prefix copy). */
export interface CopyStep {
  /** Discriminant. */
  readonly kind: 'copy';
  /** Source buffer. */
  readonly source: GPUBuffer;
  /** Destination buffer. */
  readonly destination: GPUBuffer;
  /** Bytes to copy (a multiple of 4). */
  readonly bytes: number;
  /** First byte read in source (a multiple of 4). */
  readonly sourceOffset: number;
  /** First byte written in destination (a multiple of 4). */
  readonly destinationOffset: number;
}

/** One step of an op's plan. */
export type Step = DispatchStep | CopyStep;

/** What op planners may ask of the executor. */
export interface PlanContext {
  /** The device's limits. */
  readonly limits: DeviceLimits;
  /** A scratch buffer of at least `bytes`, returned to the pool once the op is submitted. */
  scratch(bytes: number): GPUBuffer;
}

/** A dispatch of `spec`, with buffers, parameters and overrides named as in the kernel spec. */
export function dispatch<B extends string, P extends string, O extends string>(
  spec: KernelSpec<B, P, O>,
  buffers: Readonly<Record<B, StorageBinding>>,
  params: Readonly<Record<P, number>>,
  overrides: Readonly<Partial<Record<O, number>>>,
  grid: Grid,
): DispatchStep {
  const constants: Record<string, number> = {};
  for (const name of spec.overrides) {
    const value = overrides[name];
    if (value !== undefined) constants[name] = value;
  }
  return {
    kind: 'dispatch',
    spec,
    buffers: spec.bindings.map((b) => buffers[b.name]),
    params: packParams(spec, params),
    overrides: constants,
    grid,
  };
}

/** A copy step: `bytes` from source at sourceOffset to destination at destinationOffset (multiples of 4). */
export function copy(
  source: GPUBuffer,
  destination: GPUBuffer,
  bytes: number,
  sourceOffset = 0,
  destinationOffset = 0,
): CopyStep {
  if (bytes % 4 !== 0 || sourceOffset % 4 !== 0 || destinationOffset % 4 !== 0) {
    throw new Error(
      `copy: bytes ${bytes}, sourceOffset ${sourceOffset} and destinationOffset ${destinationOffset} must be multiples of 4`,
    );
  }
  return { kind: 'copy', source, destination, bytes, sourceOffset, destinationOffset };
}

/** Lays `groups` workgroups out over x and y within the per-dimension limit (kernels use x + y * num_x). */
export function linearGrid(groups: number, limits: DeviceLimits): Grid {
  if (groups <= 0) return [0, 0];
  const x = Math.min(groups, limits.maxComputeWorkgroupsPerDimension);
  return [x, Math.ceil(groups / x)];
}

/** Whether a grid fits the device (used by supportsOp). */
export function gridFits(groups: number, limits: DeviceLimits): boolean {
  const perDim = limits.maxComputeWorkgroupsPerDimension;
  return groups <= perDim * perDim;
}
