// Where a GPU backend overtakes the best CPU backend in a sweep's points: computed on the page, which must not load
// @tandem/core (sweep-measure.ts, which measures the points in the worker, does).
import type { SweepPoint } from './sweep-measure.ts';

/** Where a GPU backend overtakes the best CPU backend, or why it does not. */
export interface Crossover {
  /** GPU backend. */
  readonly gpu: string;
  /** The smallest size from which the GPU is faster at every larger measured size; undefined when never. */
  readonly size: number | undefined;
  /** A sentence for the page. */
  readonly text: string;
}

/** For each GPU backend, the crossover against the fastest CPU backend at each size. */
export function findCrossovers(
  points: readonly SweepPoint[],
  gpuBackends: readonly string[],
  cpuBackends: readonly string[],
): Crossover[] {
  const at = (series: string, size: number): number | undefined =>
    points.find((p) => p.series === series && p.size === size && p.status === 'ok')?.medianMs;
  return gpuBackends.map((gpu) => {
    const sizes = [...new Set(points.filter((p) => p.series === gpu && p.status === 'ok').map((p) => p.size))].sort(
      (a, b) => a - b,
    );
    const gpuWins: boolean[] = [];
    for (const size of sizes) {
      const gpuMs = at(gpu, size) ?? Infinity;
      const cpuMs = Math.min(...cpuBackends.map((c) => at(c, size) ?? Infinity));
      gpuWins.push(gpuMs < cpuMs);
    }
    let from: number | undefined;
    for (let i = sizes.length - 1; i >= 0 && gpuWins[i] === true; i--) from = sizes[i];
    if (sizes.length === 0) return { gpu, size: undefined, text: `${gpu}: not measured` };
    if (from === undefined)
      return {
        gpu,
        size: undefined,
        text: `${gpu} is slower than the CPU at every size measured (up to n = ${sizes[sizes.length - 1]}): the scheduler should keep this op on the CPU here`,
      };
    if (from === sizes[0])
      return { gpu, size: from, text: `${gpu} is faster than the CPU at every size measured (from n = ${from})` };
    return {
      gpu,
      size: from,
      text: `crossover at n = ${from}: ${gpu} is faster than the best CPU backend from there on`,
    };
  });
}
