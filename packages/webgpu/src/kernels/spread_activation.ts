// spreadActivation: per hop, copy the current activations (one seed vector, or a batch [batch, nodes]) into the next
// buffer, then add every spreading edge's contribution (wgsl/spread_activation.wgsl, one invocation per seed and edge). Buffers ping-pong between the output and
// one scratch buffer, arranged so the last hop lands in the output.
import { output, type WebGpuKernel } from '../kernel-support.ts';
import { copy, dispatch, gridFits, linearGrid, type Step } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

const SPREAD_WG = 256;

/** Seed vectors of an initial activation: its rows ([batch, nodes]), 1 for one vector [nodes]. */
function seedsOf(shape: readonly number[]): number {
  return shape.length === 2 ? (shape[0] ?? 0) : 1;
}

/** The WebGPU backend's spreadActivation: `iterations` hops of each seed vector. */
export const spreadActivationKernel: WebGpuKernel<'spreadActivation'> = {
  refuse(op, limits) {
    const invocations = (op.colIdx.shape[0] ?? 0) * seedsOf(op.initial.shape);
    if (invocations >= 2 ** 32)
      return `spreadActivation needs ${invocations} invocations per hop (edges x seeds); the limit is 2^32 - 1`;
    const groups = Math.ceil(invocations / SPREAD_WG);
    return gridFits(groups, limits)
      ? undefined
      : `spreadActivation on ${invocations} (edge, seed) pairs needs ${groups} workgroups`;
  },
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'spreadActivation');
    const nodes = op.initial.shape[op.initial.shape.length - 1] ?? 0;
    const seeds = seedsOf(op.initial.shape);
    const edges = op.colIdx.shape[0] ?? 0;
    const bytes = seeds * nodes * 4;
    const scratch = op.iterations > 1 ? ctx.scratch(bytes) : out.gpu;
    const grid = linearGrid(Math.ceil((edges * seeds) / SPREAD_WG), ctx.limits);
    const params = { nodes, edges, decay: op.decay, threshold: op.threshold, seeds };
    const steps: Step[] = [];
    let current = op.initial.gpu;
    for (let hop = 0; hop < op.iterations; hop++) {
      const next = (op.iterations - 1 - hop) % 2 === 0 ? out.gpu : scratch;
      steps.push(copy(current, next, bytes));
      if (edges > 0) {
        const buffers = { row_ptr: op.rowPtr.gpu, col_idx: op.colIdx.gpu, weights: op.weights.gpu, current, next };
        steps.push(dispatch(WGSL_KERNELS.spread_activation, buffers, params, { WG: SPREAD_WG }, grid));
      }
      current = next;
    }
    return steps;
  },
};
