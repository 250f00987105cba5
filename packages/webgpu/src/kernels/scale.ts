// scale: wgsl/scale.wgsl, one invocation per element; f16 results rounded to binary16.
import { numel } from '@tandem/core';
import { ELEMENTWISE_WG, elementwiseGrid, output, type WebGpuKernel } from '../kernel-support.ts';
import { dispatch } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** The WebGPU backend's scale. */
export const scaleKernel: WebGpuKernel<'scale'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'scale');
    const n = numel(out.shape);
    const overrides = { WG: ELEMENTWISE_WG, ROUND_F16: out.dtype === 'f16' ? 1 : 0 };
    return [
      dispatch(
        WGSL_KERNELS.scale,
        { x: op.x.gpu, out: out.gpu },
        { n, factor: op.factor },
        overrides,
        elementwiseGrid(n, ctx),
      ),
    ];
  },
};
