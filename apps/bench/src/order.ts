// Run orders for interleaved measurements. A fixed rotation of strategies keeps the same neighbour before each
// one in every round (with cpu, gpu, auto rotated, auto always ran right after gpu-only, and so always found the
// CPU's worker threads idle and its caches cold); a fresh shuffle per round gives each strategy every predecessor.
import { createRng } from '@tandem/core';

/** `items` in an order drawn from `seed` (Fisher-Yates); the same seed gives the same order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i + 1);
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}
