// The op union and its traversals, all derived from the definitions in ops/ (one file per op). Users build ops over
// `Tensor`; backends receive the same ops over `BoundTensor` (a device buffer). Zero-size dimensions are allowed in
// every op: an output with a zero dimension is empty, and a sum over an empty dimension is 0 (matmul and
// quantizedMatmul with K = 0 give zeros, attention over Sk = 0 gives zeros, cosineSimilarity over D = 0 scores 0).
// Every output must stay within MAX_ELEMENTS (see limits.ts).
import type { DType } from './dtype.ts';
import type { OpDefinition, OpShape } from './op-definition.ts';
import { UNARY } from './op-families.ts';
import { OP_DEFINITIONS } from './ops/index.ts';
import type { AddOp } from './ops/add.ts';
import type { MulOp } from './ops/mul.ts';

export type { TensorSpec } from './tensor-spec.ts';
export type * from './ops/index.ts';
export { OP_DEFINITIONS } from './ops/index.ts';
export { ROPE_MODES, type RopeMode } from './ops/rope.ts';

type Definitions = typeof OP_DEFINITIONS;

/** The op ids; one id names the kernel file in every backend (snake_case) and the telemetry key. */
export type OpKind = keyof Definitions;

/** The input specs of op K. */
export type InputsOf<K extends OpKind> = Definitions[K]['inputs'];

/** The parameter kinds of op K. */
export type ParamsOf<K extends OpKind> = Definitions[K]['params'];

/**
 * The dtypes input N of op K accepts, from its definition: InputDType<'matmul', 'a'> is 'f32' | 'f16'. The engine's
 * op methods take tensors of exactly these dtypes, so a wrong dtype is a compile error as well as a runtime one.
 */
export type InputDType<K extends OpKind, N extends keyof InputsOf<K>> = InputsOf<K>[N] extends {
  readonly dtypes: readonly (infer E extends DType)[];
}
  ? E
  : DType;

/** Op K over tensor references T; for a union of ids, the union of those ops (narrowed by `op`). */
export type OpOf<K extends OpKind, T> = { [P in K]: OpShape<P, InputsOf<P>, ParamsOf<P>, T> }[K];

/** Every op Tandem knows, over tensor references of type T. */
export type Op<T> = OpOf<OpKind, T>;

/** add or mul: elementwise with b broadcast over a's leading dimensions. */
export type BinaryOp<T> = AddOp<T> | MulOp<T>;

/** The ids of the unary elementwise ops (x in, x's dtype and shape out, no parameters): silu, ... */
export type UnaryOpKind = {
  [K in OpKind]: Definitions[K] extends { readonly family: typeof UNARY } ? K : never;
}[OpKind];

/** Every definition, typed per op id (what the traversals dispatch through). */
export type DefinitionTable = { readonly [K in OpKind]: OpDefinition<K, InputsOf<K>, ParamsOf<K>> };

/** The definitions, seen per op id. */
const DEFINITIONS: DefinitionTable = OP_DEFINITIONS;

function isOpKind(value: unknown): value is OpKind {
  return typeof value === 'string' && Object.hasOwn(OP_DEFINITIONS, value);
}

/** Every op id, in a stable order. */
export const OP_KINDS: readonly OpKind[] = Object.keys(OP_DEFINITIONS).filter(isOpKind);

/** The unary elementwise ops, in OP_KINDS' order. */
export const UNARY_OP_KINDS: readonly UnaryOpKind[] = OP_KINDS.filter(isUnaryOpKind);

/** Whether `kind` is a unary elementwise op. */
export function isUnaryOpKind(kind: OpKind): kind is UnaryOpKind {
  const definition = OP_DEFINITIONS[kind];
  return 'family' in definition && definition.family === UNARY;
}

/** Whether `value` names an op Tandem knows. */
export function isKnownOp(value: unknown): value is OpKind {
  return isOpKind(value);
}

/** The definition of op `kind`. */
export function opDefinition<K extends OpKind>(kind: K): DefinitionTable[K] {
  return DEFINITIONS[kind];
}

/** Rewrites every tensor of an op with `fn` (in the definition's input order), keeping the op's parameters. */
export function mapOpTensors<K extends OpKind, A, B>(op: OpOf<K, A>, fn: (t: A, name: string) => B): OpOf<K, B> {
  return DEFINITIONS[op.op].map(op, fn);
}

/** The tensors an op reads, with their parameter names, in a stable order (mapOpTensors' order). */
export function opInputs<T>(op: Op<T>): Array<{ name: string; tensor: T }> {
  const inputs: Array<{ name: string; tensor: T }> = [];
  mapOpTensors(op, (tensor, name) => {
    inputs.push({ name, tensor });
    return tensor;
  });
  return inputs;
}

/** The op's first input (the one whose dtype selects the kernel). */
export function primaryInput<T>(op: Op<T>): T {
  let first: { tensor: T } | undefined;
  mapOpTensors(op, (tensor) => {
    first ??= { tensor };
    return tensor;
  });
  if (first === undefined) throw new Error(`${op.op} has no input`);
  return first.tensor;
}
