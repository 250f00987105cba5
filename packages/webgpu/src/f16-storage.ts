// f16 tensors are stored as binary16 (two per word) but kernels read and write f32: an op's f16 inputs are widened
// into f32 scratch buffers before its steps (f16_unpack), and its f16 outputs computed into f32 scratch and packed
// into their own buffers after them (f16_pack). Ops without f16 tensors are planned unchanged.
import { mapOpTensors, numel, opInputs, type Op } from '@tandem/core';
import { WGSL_KERNELS } from './wgsl-kernels.generated.ts';
import { dispatch, linearGrid, type DeviceTensor, type PlanContext, type Step } from './plan.ts';

/** Invocations per workgroup of the f16 conversion kernels. */
const CONVERT_WG = 256;

/** Plans `op` with `plan` on f32 views of its f16 tensors, adding the conversions around its steps. */
export function planWithF16Storage(
  op: Op<DeviceTensor>,
  outputs: readonly DeviceTensor[],
  ctx: PlanContext,
  plan: (op: Op<DeviceTensor>, outputs: readonly DeviceTensor[]) => Step[],
): Step[] {
  if (!hasF16(op, outputs)) return plan(op, outputs);
  const before: Step[] = [];
  const after: Step[] = [];
  // One widened copy per stored buffer and length: an op reading the same f16 tensor twice (mul(x, x)) unpacks it once.
  const widenedBuffers = new Map<GPUBuffer, { n: number; gpu: GPUBuffer }>();
  const widened = mapOpTensors(op, (t) => {
    if (t.dtype !== 'f16') return t;
    const n = numel(t.shape);
    const seen = widenedBuffers.get(t.gpu);
    let gpu = seen?.n === n ? seen.gpu : undefined;
    if (gpu === undefined) {
      gpu = ctx.scratch(Math.max(4, n * 4));
      widenedBuffers.set(t.gpu, { n, gpu });
      if (n > 0)
        before.push(
          dispatch(
            WGSL_KERNELS.f16_unpack,
            { src: t.gpu, dst: gpu },
            { n },
            { WG: CONVERT_WG },
            linearGrid(Math.ceil(n / CONVERT_WG), ctx.limits),
          ),
        );
    }
    return { dtype: t.dtype, shape: t.shape, gpu };
  });
  const computed = outputs.map((out) => {
    if (out.dtype !== 'f16') return out;
    const n = numel(out.shape);
    const gpu = ctx.scratch(Math.max(4, n * 4));
    if (n > 0)
      after.push(
        dispatch(
          WGSL_KERNELS.f16_pack,
          { src: gpu, dst: out.gpu },
          { n },
          { WG: CONVERT_WG },
          linearGrid(Math.ceil(Math.ceil(n / 2) / CONVERT_WG), ctx.limits),
        ),
      );
    return { dtype: out.dtype, shape: out.shape, gpu };
  });
  return [...before, ...plan(widened, computed), ...after];
}

/** Whether any input or output of the op is f16. */
function hasF16(op: Op<DeviceTensor>, outputs: readonly DeviceTensor[]): boolean {
  return outputs.some((t) => t.dtype === 'f16') || opInputs(op).some(({ tensor }) => tensor.dtype === 'f16');
}
