// swiglu: wgsl/swiglu.wgsl, silu(gate) * up, one invocation per element.
import { numel } from '@tandem/core';
import { ELEMENTWISE_WG, elementwiseGrid, output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** The WebGPU backend's swiglu. */
export const swigluKernel: WebGpuKernel<'swiglu'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'swiglu');
    const n = numel(out.shape);
    return [
      dispatch(
        WGSL_KERNELS.swiglu,
        { gate: op.gate.gpu, up: op.up.gpu, out: out.gpu },
        { n },
        { WG: ELEMENTWISE_WG },
        elementwiseGrid(n, ctx),
      ),
    ];
  },
};
