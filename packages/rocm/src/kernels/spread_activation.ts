// spreadActivation: native-rocm/kernels/spread_activation.hip over a CSR graph.
import { dim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({
  nodes: 'dim',
  edges: 'dim',
  decay: 'number',
  threshold: 'number',
  iterations: 'dim',
  seeds: 'dim',
});

/** The ROCm backend's spreadActivation, of one seed vector [nodes] or each of a batch [batch, nodes], seed after seed. */
export const spreadActivationKernel: RocmKernel<'spreadActivation'> = {
  natives: { spread_activation: PARAMS },
  nativeId: () => 'spread_activation',
  encode: (op) =>
    nativeCall(PARAMS, 'spread_activation', [op.rowPtr, op.colIdx, op.weights, op.initial], {
      nodes: dim(op.initial, -1),
      seeds: op.initial.shape.length === 2 ? dim(op.initial, 0) : 1,
      edges: dim(op.colIdx, 0),
      decay: op.decay,
      threshold: op.threshold,
      iterations: op.iterations,
    }),
};
