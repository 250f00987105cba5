// spreadActivation over a CSR graph (wasm-kernels/spread_activation.ts), activations and sums in scratch.
import { dim, type WasmKernel } from '../kernel-support.ts';

/** The wasm backend's spreadActivation. */
export const spreadActivationKernel: WasmKernel<'spreadActivation'> = {
  run(op, outs, ctx) {
    const [nodes, edges] = [dim(op.initial, 0), dim(op.colIdx, 0)];
    const scratch = ctx.scratch(ctx.kernels.spread_activation_scratch_bytes(nodes), 'activation and sums');
    ctx.kernels.spread_activation_f32(
      ctx.pointer(op.rowPtr), ctx.pointer(op.colIdx), ctx.pointer(op.weights), ctx.pointer(op.initial), outs[0] ?? 0, scratch,
      nodes, edges, op.decay, op.threshold, op.iterations,
    );
  },
};
