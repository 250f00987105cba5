// spreadActivation: per hop, copy the current activation into the next buffer, then add every spreading edge's
// contribution (wgsl/spread_activation.wgsl, one invocation per edge). Buffers ping-pong between the output and
// one scratch buffer, arranged so the last hop lands in the output.
import { elementCountRefusal, output, type WebGpuKernel } from '../kernel-support.ts';
import { copy, dispatch, linearGrid, type Step } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

const SPREAD_WG = 256;

/** The WebGPU backend's spreadActivation: `iterations` hops of one seed vector (a batch [batch, nodes] is refused). */
export const spreadActivationKernel: WebGpuKernel<'spreadActivation'> = {
  refuse: (op, limits) =>
    op.initial.shape.length === 2 ? 'spreadActivation over a batch of seed vectors (initial [batch, nodes]) is not implemented on WebGPU yet' : elementCountRefusal(op, limits),
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'spreadActivation');
    const nodes = op.initial.shape[0] ?? 0;
    const edges = op.colIdx.shape[0] ?? 0;
    const bytes = nodes * 4;
    const scratch = op.iterations > 1 ? ctx.scratch(bytes) : out.gpu;
    const grid = linearGrid(Math.ceil(edges / SPREAD_WG), ctx.limits);
    const params = { nodes, edges, decay: op.decay, threshold: op.threshold };
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
