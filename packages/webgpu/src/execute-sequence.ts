// Runs a recorded sequence (graph replay, issue 28) on a device. Whole: every step's outputs from the pool, every step
// planned as executeOp plans it, all of it encoded into one command buffer, one submit and one wait for the run; the
// intermediates go back to the pool once the GPU is done (the command buffer reads them all), the kept values' buffers
// to the caller. Op by op (each step's own time, when the engine asks for it): executeOp per step, intermediates
// released after their last reader.
import { BackendError, mapOpTensors, type RecordedSequence } from '@tandem/core';
import type { DeviceContext } from './device-context.ts';
import { storageByteLength } from './device-layout.ts';
import { executeOp, planOp, submitPlanned, type ExecutedOp } from './execute-op.ts';
import { planWithF16Storage } from './f16-storage.ts';
import { BACKEND_NAME } from './gpu-errors.ts';
import type { DeviceTensor, Step } from './plan.ts';

/** What a sequence run gives back: the kept values' tensors, its time, and each step's when run op by op. */
export interface ExecutedSequence extends ExecutedOp {
  /** Each step's kernel time, ms (op by op only). */
  readonly stepMs?: readonly number[];
}

/** The op of `step` over the values' tensors (read with the step's shapes). */
function stepOp(sequence: RecordedSequence, index: number, values: readonly (DeviceTensor | undefined)[]) {
  const step = sequence.steps[index];
  if (step === undefined) throw new BackendError('BIND_FAILED', BACKEND_NAME, `sequence has no step ${index}`);
  const op = mapOpTensors(step.op, (t): DeviceTensor => {
    const value = values[t.value];
    if (value === undefined)
      throw new BackendError('BIND_FAILED', BACKEND_NAME, `${step.label}: value ${t.value} has no buffer`);
    return { dtype: value.dtype, shape: t.shape, gpu: value.gpu };
  });
  return { step, op };
}

/** Every step in one command buffer and one submit; `inputs` are the sequence's inputs on this device. */
export async function executeSequence(
  ctx: DeviceContext,
  sequence: RecordedSequence,
  inputs: readonly DeviceTensor[],
): Promise<ExecutedSequence> {
  let requestedBytes = 0;
  for (const step of sequence.steps) for (const spec of step.outputs) requestedBytes += storageByteLength(spec);
  const what = `sequence of ${sequence.steps.length} ops`;
  const done = await submitPlanned(ctx, what, requestedBytes, (output, planContext) => {
    const values: (DeviceTensor | undefined)[] = [...inputs];
    const steps: Step[] = [];
    for (let s = 0; s < sequence.steps.length; s++) {
      const { step, op } = stepOp(sequence, s, values);
      const outs = step.outputs.map(output);
      outs.forEach((out, k) => {
        values[step.firstOutput + k] = out;
      });
      steps.push(...planWithF16Storage(op, outs, planContext, (w, c) => planOp(w, c, planContext)));
    }
    const kept = sequence.keep.map((v) => {
      const value = values[v];
      if (value === undefined) throw new BackendError('BAD_OUTPUT', BACKEND_NAME, `kept value ${v} has no buffer`);
      return value;
    });
    return { steps, value: kept };
  });
  // The command buffer read every intermediate; now only the kept values' buffers stay out of the pool.
  const keptBuffers = new Set(done.value.map((t) => t.gpu));
  for (const gpu of done.allocated) if (!keptBuffers.has(gpu)) ctx.pool.release(gpu);
  return { outputs: done.value, kernelMs: done.kernelMs };
}

/** Each step through executeOp, timed; intermediates back to the pool after their last reader. */
export async function executeSequenceByStep(
  ctx: DeviceContext,
  sequence: RecordedSequence,
  inputs: readonly DeviceTensor[],
): Promise<ExecutedSequence> {
  const values: (DeviceTensor | undefined)[] = [...inputs];
  const made = new Set<number>();
  const stepMs: number[] = [];
  try {
    for (let s = 0; s < sequence.steps.length; s++) {
      const { step, op } = stepOp(sequence, s, values);
      const executed = await executeOp(ctx, op, step.outputs);
      executed.outputs.forEach((out, k) => {
        values[step.firstOutput + k] = out;
        made.add(step.firstOutput + k);
      });
      stepMs.push(executed.kernelMs);
      for (const v of step.release) {
        const value = values[v];
        if (value === undefined || !made.has(v) || sequence.keep.includes(v)) continue;
        ctx.pool.release(value.gpu);
        made.delete(v);
      }
    }
  } catch (error) {
    for (const v of made) {
      const value = values[v];
      if (value !== undefined) ctx.pool.release(value.gpu);
    }
    throw error;
  }
  const outputs = sequence.keep.map((v) => {
    const value = values[v];
    if (value === undefined) throw new BackendError('BAD_OUTPUT', BACKEND_NAME, `kept value ${v} has no buffer`);
    return value;
  });
  return { outputs, kernelMs: stepMs.reduce((a, b) => a + b, 0), stepMs };
}
