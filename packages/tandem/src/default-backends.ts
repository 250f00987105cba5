// The composition root: which backends a default engine gets. Each entry is a lazy factory, so a host that
// lacks a backend (no WebGPU, no ROCm toolchain) never loads its code; a factory that throws is reported, not fatal.
import type { CapableBackend } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';

/** A backend to try: its name and how to build it. */
export interface BackendFactory {
  /** Backend name, for messages. */
  readonly name: string;
  /** Builds it (may load code lazily). */
  readonly create: () => Promise<CapableBackend>;
}

/** Backends in preference order; the reference (plain TypeScript) is always last, as the answer of last resort. */
export const DEFAULT_BACKENDS: readonly BackendFactory[] = [
  { name: 'reference', create: async () => new ReferenceBackend() },
];
