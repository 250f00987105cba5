// What core knows about each op without running it: validation, output specs, and how much work it is. Every input's
// dtype and rank is checked from its definition (ops/*.ts), then the op's own checks run and give the outputs.
import { InvalidArgumentError } from './errors.ts';
import { checkOutputShapes } from './limits.ts';
import type { OpWork } from './op-definition.ts';
import { opDefinition, opInputs, type Op, type OpKind, type OpOf, type TensorSpec } from './ops.ts';

export type { OpWork } from './op-definition.ts';

/**
 * Validates an op's inputs and parameters; returns the specs of its outputs, each within the element limit.
 * Throws InvalidArgumentError.
 */
export function inferOutputs(op: Op<TensorSpec>): TensorSpec[] {
  return inferOutputsOf(op, opInputs(op));
}

/** inferOutputs for a caller that has the op's inputs already (the engine: one traversal per call). */
export function inferOutputsOf(
  op: Op<TensorSpec>,
  inputs: ReadonlyArray<{ name: string; tensor: TensorSpec }>,
): TensorSpec[] {
  checkInputs(op.op, inputs);
  const outputs = outputSpecs(op);
  checkOutputShapes(op, outputs);
  return outputs;
}

/** Every input's dtype (or its equality with another input's), then every input's rank, in input order. */
function checkInputs(kind: OpKind, inputs: ReadonlyArray<{ name: string; tensor: TensorSpec }>): void {
  const definition = opDefinition(kind);
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    const spec = input === undefined ? undefined : definition.inputSpecs[definition.inputNames.indexOf(input.name)];
    if (input === undefined || spec === undefined) continue;
    const dtype = input.tensor.dtype;
    if (spec.sameDtypeAs !== undefined) {
      const other = inputs.find((x) => x.name === spec.sameDtypeAs)?.tensor.dtype;
      if (dtype !== other)
        throw new InvalidArgumentError(
          `${kind}.${input.name}.dtype`,
          dtype,
          `must equal ${spec.sameDtypeAs}.dtype (${other})`,
        );
    } else if (!spec.dtypes.includes(dtype)) {
      throw new InvalidArgumentError(`${kind}.${input.name}.dtype`, dtype, `must be one of ${spec.dtypes.join(', ')}`);
    }
  }
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    const spec = input === undefined ? undefined : definition.inputSpecs[definition.inputNames.indexOf(input.name)];
    if (input === undefined || spec === undefined) continue;
    const rank = input.tensor.shape.length;
    if (spec.ranks !== undefined && !spec.ranks.includes(rank)) {
      throw new InvalidArgumentError(
        `${kind}.${input.name}.shape`,
        [...input.tensor.shape],
        `must have rank ${spec.ranks.join(' or ')}`,
      );
    }
    if (spec.minRank !== undefined && rank < spec.minRank) {
      throw new InvalidArgumentError(
        `${kind}.${input.name}.shape`,
        [...input.tensor.shape],
        `must have rank >= ${spec.minRank}`,
      );
    }
  }
}

function outputSpecs<K extends OpKind>(op: OpOf<K, TensorSpec>): TensorSpec[] {
  return opDefinition(op.op).outputs(op);
}

/** How much work an op is; pass inferOutputs' result when you have it (it also validates). */
export function opWork(op: Op<TensorSpec>, outputs: readonly TensorSpec[] = inferOutputs(op)): OpWork {
  return workOf(op, outputs);
}

function workOf<K extends OpKind>(op: OpOf<K, TensorSpec>, outputs: readonly TensorSpec[]): OpWork {
  return opDefinition(op.op).work(op, outputs);
}
