// What the WebGPU backend runs, as data: one row per op of its kernel table (kernels/index.ts); f16 runs on every
// adapter (stored as binary16, computed in f32: device-layout.ts).
import { capabilitiesOf, type Capability } from '@tandem/core';
import { WEBGPU_KERNELS } from './kernel-table.ts';

/** Ops and dtypes of the WebGPU backend. */
export const WEBGPU_CAPABILITIES: readonly Capability[] = capabilitiesOf(WEBGPU_KERNELS);
