// What the ROCm backend runs, as data: one row per op of its kernel table (kernels/index.ts). Limits that depend on
// the addon and the device (attention head size, topK's k, grid sizes) are each kernel's, checked by supportsOp.
import { capabilitiesOf, type Capability } from '@tandem/core';
import { ROCM_KERNELS } from './kernel-table.ts';

/** Ops and dtypes of the ROCm (HIP) backend. */
export const ROCM_CAPABILITIES: readonly Capability[] = capabilitiesOf(ROCM_KERNELS);
