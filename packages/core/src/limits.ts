// Limits checked before any backend is asked: every output's shape against the element limit (inferOutputs calls
// checkOutputShapes), and the memory an op needs on each backend (inputs not there yet, outputs, the backend's
// scratch) against what it has free (a plan that failed only for memory is a ResourceExhaustedError).
import { byteLengthOf } from './dtype.ts';
import { AllBackendsFailedError, InvalidArgumentError, ResourceExhaustedError, type TandemError } from './errors.ts';
import type { Op, TensorSpec } from './ops.ts';
import { opInputs } from './ops.ts';
import type { MemoryShortfall } from './scheduler/scheduler.ts';
import type { SkippedBackend } from './scheduler/selection.ts';
import { MAX_ELEMENTS, numel } from './shape.ts';

/** Bytes of an op's inputs and outputs (what a backend holds while it runs the op, beside its own scratch). */
export interface OpMemory {
  /** Bytes of every input (what a backend allocates to hold the ones not yet resident there). */
  readonly inputBytes: number;
  /** Bytes of every output. */
  readonly outputBytes: number;
}

/**
 * Throws InvalidArgumentError naming the op and the output when an output has more than MAX_ELEMENTS elements: a
 * [46341, 1] x [1, 46341] matmul (2^31 + 4633 outputs) or [2^20, 0] x [0, 2^12] (2^32) is refused here, before any
 * allocation. O(rank) per output.
 */
export function checkOutputShapes(op: Op<TensorSpec>, outputs: readonly TensorSpec[]): void {
  for (let i = 0; i < outputs.length; i++) {
    const shape = outputs[i]?.shape ?? [];
    let n = 1;
    let largest = 0;
    for (let d = 0; d < shape.length; d++) {
      const size = shape[d] ?? 1;
      n *= size;
      if (size > largest) largest = size;
    }
    if (n > MAX_ELEMENTS || largest > MAX_ELEMENTS) {
      const inputs = opInputs(op)
        .map(({ name, tensor }) => `${name} [${tensor.shape.join(', ')}]`)
        .join(', ');
      const count = n > MAX_ELEMENTS ? `${n} elements` : `a dimension of ${largest}`;
      throw new InvalidArgumentError(
        `${op.op}.output${outputs.length === 1 ? '' : `[${i}]`}.shape`,
        [...shape],
        `has ${count} (from ${inputs}); the limit is ${MAX_ELEMENTS}`,
      );
    }
  }
}

/** Bytes of an op's inputs and outputs. O(inputs + rank). */
export function opMemory(op: Op<TensorSpec>, outputs: readonly TensorSpec[]): OpMemory {
  let inputBytes = 0;
  for (const { tensor } of opInputs(op)) inputBytes += byteLengthOf(tensor.dtype, numel(tensor.shape));
  let outputBytes = 0;
  for (const o of outputs) outputBytes += byteLengthOf(o.dtype, numel(o.shape));
  return { inputBytes, outputBytes };
}

/**
 * The error of a call no backend can take: ResourceExhaustedError when backends able to run it were left out for
 * lack of memory and no other was left, else AllBackendsFailedError; either lists every backend's reason.
 */
export function unplannable(
  op: Op<TensorSpec>,
  skipped: readonly SkippedBackend[],
  shortfall: MemoryShortfall | undefined,
): TandemError {
  const failures = skipped.map((s) => ({ backend: s.backend, error: s.reason }));
  if (shortfall === undefined) return new AllBackendsFailedError(op.op, failures);
  const shapes = opInputs(op)
    .map(({ name, tensor }) => `${name} ${tensor.dtype} [${tensor.shape.join(', ')}]`)
    .join(', ');
  return new ResourceExhaustedError(op.op, shapes, shortfall.requiredBytes, shortfall.availableBytes, failures);
}
