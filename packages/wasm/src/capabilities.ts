// What the wasm backend runs, as data: one row per op of its kernel table (kernels/index.ts), with the dtypes each
// op's definition accepts for its first input. f16 matmul / add / mul / scale are computed in f32 (inputs widened
// exactly, one rounding to f16 at the end), so they are at least as accurate as f16 arithmetic.
import { capabilitiesOf, type Capability } from '@tandem/core';
import { WASM_KERNELS } from './kernel-table.ts';

/** The wasm backend's capability table. */
export const WASM_CAPABILITIES: readonly Capability[] = capabilitiesOf(WASM_KERNELS);
