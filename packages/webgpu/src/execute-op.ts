// Runs one resolved op on a device: allocates its outputs from the pool, plans and encodes it, submits, and
// waits for completion inside guarded() (so failures come out as BackendErrors and nothing leaks). submitPlanned is
// that submit for any plan (a recorded sequence's too: execute-sequence.ts).
import { BackendError, monotonicClock, type Op, type OpKind, type OpOf, type TensorSpec } from '@tandem/core';
import type { DeviceContext } from './device-context.ts';
import { storageByteLength } from './device-layout.ts';
import { encodeAndSubmit, hasDispatch } from './encode.ts';
import { MAP_READ_MODE, TENSOR_USAGE } from './gpu-constants.ts';
import { guarded } from './guarded.ts';
import { planWithF16Storage } from './f16-storage.ts';
import { BACKEND_NAME } from './gpu-errors.ts';
import { WEBGPU_KERNELS } from './kernel-table.ts';
import type { DeviceTensor, DispatchStep, PlanContext, Step } from './plan.ts';
import { TimestampPair } from './timestamps.ts';

/** The outputs of an executed op and the time it took. */
export interface ExecutedOp {
  /** One resident tensor per output spec (pooled buffers now owned by the caller). */
  readonly outputs: readonly DeviceTensor[];
  /** Kernel time from timestamps when available and plausible, else wall time around submit + completion. */
  readonly kernelMs: number;
}

/** Executes `op` (inputs already resolved to this context's buffers) into new outputs. */
export async function executeOp(
  ctx: DeviceContext,
  op: Op<DeviceTensor>,
  outputs: readonly TensorSpec[],
): Promise<ExecutedOp> {
  const requestedBytes = outputs.reduce((sum, spec) => sum + storageByteLength(spec), 0);
  const done = await submitPlanned(ctx, op.op, requestedBytes, (output, planContext) => {
    const outs = outputs.map(output);
    return { value: outs, steps: planWithF16Storage(op, outs, planContext, (w, c) => planOp(w, c, planContext)) };
  });
  return { outputs: done.value, kernelMs: done.kernelMs };
}

/** What a planning section hands to submitPlanned: the steps to encode, and its own result. */
export interface Planned<T> {
  /** Steps to encode, in order. */
  readonly steps: readonly Step[];
  /** What submitPlanned resolves with once the GPU is done. */
  readonly value: T;
}

/**
 * One guarded submit: `plan` takes its output buffers from `output` and plans its steps with `planContext`; the
 * steps are encoded into one command buffer, submitted and waited for (inside guarded(), so failures come out as
 * BackendErrors). On failure every buffer acquired is destroyed. Resolves with plan's value, the kernel time, and
 * the output buffers acquired, which the caller owns; scratch goes back to the pool.
 */
export async function submitPlanned<T>(
  ctx: DeviceContext,
  what: string,
  requestedBytes: number,
  plan: (output: (spec: TensorSpec) => DeviceTensor, planContext: PlanContext) => Planned<T>,
): Promise<{ readonly value: T; readonly kernelMs: number; readonly allocated: readonly GPUBuffer[] }> {
  const allocated: GPUBuffer[] = [];
  const transient: GPUBuffer[] = [];
  const dispatched: DispatchStep[] = [];
  const timer: { pair?: TimestampPair } = {};
  const started = monotonicClock();
  const value = await guarded(
    ctx,
    { what, requestedBytes },
    () => {
      const output = (spec: TensorSpec): DeviceTensor => {
        const gpu = ctx.pool.acquire(storageByteLength(spec), TENSOR_USAGE);
        allocated.push(gpu);
        return { dtype: spec.dtype, shape: spec.shape, gpu };
      };
      const planContext: PlanContext = {
        limits: ctx.limits,
        scratch: (bytes) => {
          const gpu = ctx.pool.acquire(bytes, TENSOR_USAGE);
          transient.push(gpu);
          return gpu;
        },
      };
      const planned = plan(output, planContext);
      dispatched.push(...planned.steps.flatMap((step) => (step.kind === 'dispatch' ? [step] : [])));
      if (ctx.timestamps && hasDispatch(planned.steps)) timer.pair = new TimestampPair(ctx);
      transient.push(...encodeAndSubmit(ctx, planned.steps, what, timer.pair));
      return planned.value;
    },
    () =>
      timer.pair !== undefined
        ? timer.pair.readback.mapAsync(MAP_READ_MODE, 0, 16)
        : ctx.device.queue.onSubmittedWorkDone(),
    () => {
      for (const gpu of [...allocated, ...transient]) gpu.destroy();
      timer.pair?.discard();
      // A pipeline that failed to build stays invalid: rebuild this run's pipelines next time.
      for (const step of dispatched) ctx.pipelines.forget(step.spec, step.overrides);
    },
  );
  const wallMs = monotonicClock() - started;
  const measured = timer.pair?.readMs();
  timer.pair?.release();
  for (const gpu of transient) ctx.pool.release(gpu);
  // Timestamps can be quantized (browsers) or missing; never report more than the wall time around the op.
  return { value, kernelMs: measured !== undefined && measured <= wallMs ? measured : wallMs, allocated };
}

/** Steps that compute `op` into `outputs` (allocated by the caller, one per output spec), by its kernel. */
export function planOp<K extends OpKind>(
  op: OpOf<K, DeviceTensor>,
  outputs: readonly DeviceTensor[],
  ctx: PlanContext,
): Step[] {
  const kernel = WEBGPU_KERNELS[op.op];
  if (kernel === undefined) throw new BackendError('UNSUPPORTED', BACKEND_NAME, `${op.op} has no WebGPU kernel`);
  return kernel.plan(op, outputs, ctx);
}
