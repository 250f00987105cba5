// Recorded sequences (graph replay, issue 28): ops over indexed values, checked once when recorded, then run on one
// backend as a whole, with no planning, no validation and no learning per op. Values 0..inputs-1 are the caller's
// tensors; each step's outputs are appended in order. A step reads a value with a shape of its own (a reshape: the
// same bytes). The graph executor records a plan that has settled on one backend and replays it (packages/graph).
import { byteLengthOf, type DType } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { inferOutputsOf, opWork, type OpWork } from './op-info.ts';
import { mapOpTensors, opInputs, type Op, type OpKind, type TensorSpec } from './ops.ts';
import { opKeyOf } from './scheduler/op-key.ts';
import type { SelectionReason } from './scheduler/selection.ts';
import { numel } from './shape.ts';
import type { TensorOwner } from './ownership.ts';

/** A value as a step reads it: its index, and the shape it is read with (the value's own, or a reshape of it). */
export interface SequenceTensor {
  /** Index of the value: an input, or an earlier step's output. */
  readonly value: number;
  /** The shape the op sees (same element count as the value). */
  readonly shape: readonly number[];
}

/** One step as the caller describes it. */
export interface SequenceStepSpec {
  /** Its name in telemetry (a graph node's name). */
  readonly label: string;
  /** The op over values. */
  readonly op: Op<SequenceTensor>;
  /** Values no later step reads: freed after this step (unless kept or an input). */
  readonly release: readonly number[];
}

/** A sequence as the caller describes it. */
export interface SequenceSpec {
  /** What each input must be. */
  readonly inputs: readonly TensorSpec[];
  /** The steps, in order. */
  readonly steps: readonly SequenceStepSpec[];
  /** Values handed back as tensors, in this order. */
  readonly keep: readonly number[];
}

/** A step checked when recorded: its outputs, work and cost-model key, and what its telemetry events say. */
export interface RecordedStep extends SequenceStepSpec {
  /** The op over the specs it reads. */
  readonly spec: Op<TensorSpec>;
  /** The op's output specs. */
  readonly outputs: readonly TensorSpec[];
  /** Index of its first output value. */
  readonly firstOutput: number;
  /** Its work (the cost model learns each replayed step's time against it). */
  readonly work: OpWork;
  /** Its cost-model key, e.g. 'matmul|f32'. */
  readonly opKey: string;
  /** Dtype of its first input. */
  readonly dtype: DType;
  /** Its inputs' shapes, as telemetry writes them. */
  readonly shapes: string;
  /** Why it ran where it did, in telemetry: a replay of its label. */
  readonly reason: SelectionReason;
}

/** A sequence checked once; run it with engine.runSequence(). */
export class RecordedSequence {
  /** What each input must be. */
  readonly inputs: readonly TensorSpec[];
  /** The checked steps. */
  readonly steps: readonly RecordedStep[];
  /** Values handed back, in order. */
  readonly keep: readonly number[];
  /** Every value's spec (inputs, then outputs). */
  readonly values: readonly TensorSpec[];
  /** The engine that recorded it (only that engine runs it). */
  readonly owner: TensorOwner;

  constructor(spec: SequenceSpec, owner: TensorOwner) {
    const values: TensorSpec[] = spec.inputs.map((s) => ({ dtype: s.dtype, shape: [...s.shape] }));
    const steps: RecordedStep[] = [];
    for (const [index, step] of spec.steps.entries()) {
      const where = `sequence.steps[${index}] (${step.label})`;
      const specOp = mapOpTensors(step.op, (t, name): TensorSpec => {
        const value = values[t.value];
        if (!Number.isInteger(t.value) || value === undefined)
          throw new InvalidArgumentError(
            `${where}.${name}.value`,
            t.value,
            `must name an earlier value (0..${values.length - 1})`,
          );
        if (numel(t.shape) !== numel(value.shape))
          throw new InvalidArgumentError(
            `${where}.${name}.shape`,
            [...t.shape],
            `must have the ${numel(value.shape)} elements of value ${t.value} [${value.shape.join(', ')}]`,
          );
        return { dtype: value.dtype, shape: t.shape };
      });
      const inputs = opInputs(specOp);
      const outputs = inferOutputsOf(specOp, inputs);
      for (const id of step.release) {
        if (!Number.isInteger(id) || id < 0 || id >= values.length + outputs.length)
          throw new InvalidArgumentError(`${where}.release`, id, `must name a value up to this step's outputs`);
      }
      steps.push({
        ...step,
        spec: specOp,
        outputs,
        firstOutput: values.length,
        work: opWork(specOp, outputs),
        opKey: opKeyOf(specOp, inputs),
        dtype: inputs[0]?.tensor.dtype ?? 'f32',
        shapes: inputs.map((i) => i.tensor.shape.join('x')).join(', '),
        reason: { kind: 'replay', label: step.label },
      });
      values.push(...outputs);
    }
    for (const [k, id] of spec.keep.entries()) {
      if (!Number.isInteger(id) || id < spec.inputs.length || values[id] === undefined)
        throw new InvalidArgumentError(
          'sequence.keep',
          id,
          `must name a step's output (${spec.inputs.length}..${values.length - 1}); inputs stay with their owner`,
        );
      // Two tensors over one buffer would each free it.
      if (spec.keep.indexOf(id) !== k) throw new InvalidArgumentError('sequence.keep', id, 'must name each value once');
    }
    this.inputs = values.slice(0, spec.inputs.length);
    this.steps = steps;
    this.keep = [...spec.keep];
    this.values = values;
    this.owner = owner;
  }

  /** Byte length of a value. */
  byteLengthOf(value: number): number {
    const spec = this.values[value];
    return spec === undefined ? 0 : byteLengthOf(spec.dtype, numel(spec.shape));
  }

  /** The op kinds it runs, once each. */
  opKinds(): OpKind[] {
    return [...new Set(this.steps.map((s) => s.op.op))];
  }
}
