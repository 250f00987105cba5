// Disposing the tensors a search made, whichever of them were made before a failure.
import type { Tensor } from '@tandem/core';

/** Disposes every tensor given, skipping undefined ones. */
export function disposeAll(tensors: ReadonlyArray<Tensor | undefined>): void {
  for (const t of tensors) t?.dispose();
}
