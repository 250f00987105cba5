// spreadActivation: native-rocm/kernels/spread_activation.hip over a CSR graph.
import { dim, type RocmKernel } from '../kernel-support.ts';
import { nativeCall, nativeParams } from '../native-params.ts';

const PARAMS = nativeParams({ nodes: 'dim', edges: 'dim', decay: 'number', threshold: 'number', iterations: 'dim' });

/** The ROCm backend's spreadActivation, of one seed vector (a batch [batch, nodes] is refused). */
export const spreadActivationKernel: RocmKernel<'spreadActivation'> = {
  refuse: (op) => (op.initial.shape.length === 2 ? 'spreadActivation over a batch of seed vectors (initial [batch, nodes]) is not implemented on ROCm yet' : undefined),
  natives: { spread_activation: PARAMS },
  nativeId: () => 'spread_activation',
  encode: (op) =>
    nativeCall(PARAMS, 'spread_activation', [op.rowPtr, op.colIdx, op.weights, op.initial], {
      nodes: dim(op.initial, 0),
      edges: dim(op.colIdx, 0),
      decay: op.decay,
      threshold: op.threshold,
      iterations: op.iterations,
    }),
};
