// What the reference runs: every op of its kernel table, on every dtype of the first input its definition accepts.
import { capabilitiesOf, type Capability } from '@tandem/core';
import { REFERENCE_KERNELS } from './kernels/index.ts';

/** The reference backend's capability table: no size limits, no device features. */
export const REFERENCE_CAPABILITIES: readonly Capability[] = capabilitiesOf(REFERENCE_KERNELS);
