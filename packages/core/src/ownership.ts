// Tensors belong to the engine that made them. A storage's replicas are keyed by backend name and buffer ids that
// restart in every engine, so another engine binding them would read its own, unrelated buffers: every op input is
// checked against the calling engine first (a pointer comparison per input), after the op itself is known.
import { DisposedError, InvalidArgumentError } from './errors.ts';
import { OP_KINDS, opInputs, type Op } from './ops.ts';
import { describeValue } from './shape.ts';
import { Tensor } from './tensor.ts';

/** The engine a storage belongs to, compared by identity (a counter could repeat across copies of this module). */
export interface TensorOwner {
  /** Shown in errors, e.g. 'engine 2'. */
  readonly label: string;
}

let enginesMade = 0;

/** Every op id, for checking an op argument's kind in O(1). */
const KNOWN_OPS: ReadonlySet<string> = new Set(OP_KINDS);

/** A new owner for a new engine. */
export function newTensorOwner(): TensorOwner {
  enginesMade++;
  return { label: `engine ${enginesMade}` };
}

/**
 * Throws unless `tensor` is a live Tensor of `owner`: InvalidArgumentError naming `argument` for anything else or a
 * tensor of another engine, DisposedError for a disposed one. `unowned: 'allow'` also lets through tensors made
 * outside any engine (graph planning's data-less placeholders, which explain() prices and run() refuses).
 */
export function checkOwnTensor(
  argument: string,
  tensor: unknown,
  owner: TensorOwner,
  unowned: 'allow' | 'refuse' = 'refuse',
): asserts tensor is Tensor {
  if (!(tensor instanceof Tensor))
    throw new InvalidArgumentError(argument, describeValue(tensor), 'must be a Tensor from engine.tensor() or an op');
  const theirs = tensor.storage.owner;
  if (theirs !== owner && !(theirs === undefined && unowned === 'allow')) {
    const whose = theirs === undefined ? 'no engine' : `another engine (${theirs.label}; this is ${owner.label})`;
    throw new InvalidArgumentError(
      argument,
      `a tensor [${tensor.shape.join(', ')}] ${tensor.dtype}`,
      `belongs to ${whose}: use tensors of the engine that runs the op (read() it and make a tensor here to move it)`,
    );
  }
  if (tensor.disposed) throw new DisposedError(argument);
}

/**
 * Checks the op argument of run() or explain() (`where`) as it arrives at run time, whatever its static type: an
 * object naming a known op, whose every tensor passes checkOwnTensor as `<op>.<input>`. Returns the op's inputs.
 * O(inputs).
 */
export function checkOpArgument(
  where: string,
  op: Op<Tensor>,
  owner: TensorOwner,
  unowned: 'allow' | 'refuse',
): Array<{ name: string; tensor: Tensor }> {
  if (typeof op !== 'object' || op === null)
    throw new InvalidArgumentError(where, describeValue(op), "must be an op object such as { op: 'matmul', a, b }");
  if (!KNOWN_OPS.has(op.op))
    throw new InvalidArgumentError(`${where}.op`, describeValue(op.op), `must be one of ${OP_KINDS.join(', ')}`);
  const inputs = opInputs(op);
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    if (input !== undefined) checkOwnTensor(`${op.op}.${input.name}`, input.tensor, owner, unowned);
  }
  return inputs;
}

/** `<op>.<input>` of the first input that was disposed, or undefined when every input is live. O(inputs). */
export function disposedInput(op: string, inputs: ReadonlyArray<{ name: string; tensor: Tensor }>): string | undefined {
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    if (input?.tensor.disposed) return `${op}.${input.name}`;
  }
  return undefined;
}
