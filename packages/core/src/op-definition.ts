// defineOp: everything core knows about one op, in one object (after TF.js's kernel names and ggml's op table):
// its tensor inputs with their dtypes and ranks, its parameters, how to rebuild it over other tensor references,
// its output specs (with the op's own checks) and its work. The op's TypeScript type is derived from the same
// object, so an input added to a definition is an input of the type, of every traversal and of the wire guard.
import type { DType } from './dtype.ts';
import type { TensorSpec } from './tensor-spec.ts';

/** One tensor input of an op. */
export interface InputSpec {
  /** Dtypes accepted; for the first input, the dtypes a capability row lists (what selects the kernel). */
  readonly dtypes: readonly DType[];
  /** Instead of `dtypes`: must have the dtype of this earlier input (`matmul.b.dtype = ...: must equal a.dtype`). */
  readonly sameDtypeAs?: string;
  /** Ranks accepted (`must have rank 2`); absent: any rank up to MAX_RANK. */
  readonly ranks?: readonly number[];
  /** Fewest dimensions (`must have rank >= 1`). */
  readonly minRank?: number;
  /** May be left out (undefined): rmsNorm's weight. */
  readonly optional?: boolean;
}

/** What a parameter holds, as the wire guard and the type see it: a number, an optional number, a flag, or one of a few strings. */
export type ParamKind = 'number' | 'number?' | 'boolean' | readonly string[];

/** How much an op does: the scheduler's cost model and the roofline prior use these. */
export interface OpWork {
  /** Arithmetic operations (a multiply-add counts 2). */
  readonly flops: number;
  /** Bytes read and written at minimum. */
  readonly bytes: number;
  /** Rows processed together (M of a matmul, queries of a search; each op's batchDoc says); compared with gpuMinBatchSize. */
  readonly batch: number;
}

/** The value a parameter of kind P holds. */
export type ParamValue<P extends ParamKind> = P extends 'number'
  ? number
  : P extends 'number?'
    ? number | undefined
    : P extends 'boolean'
      ? boolean
      : P extends readonly (infer E)[]
        ? E
        : never;

/** The value an input of spec S holds: a tensor reference T, or T | undefined when optional. */
export type InputValue<S extends InputSpec, T> = S extends { readonly optional: true } ? T | undefined : T;

/** The fields of an op besides `op`: its inputs over tensor references T, then its parameters. */
export type OpFields<
  I extends Readonly<Record<string, InputSpec>>,
  P extends Readonly<Record<string, ParamKind>>,
  T,
> = {
  readonly [K in keyof I]: InputValue<I[K], T>;
} & { readonly [K in keyof P]: ParamValue<P[K]> };

/** An op of id `Id` with inputs I and parameters P, over tensor references T. */
export type OpShape<
  Id extends string,
  I extends Readonly<Record<string, InputSpec>>,
  P extends Readonly<Record<string, ParamKind>>,
  T,
> = {
  readonly op: Id;
} & OpFields<I, P, T>;

/** What defineOp is given. */
export interface OpDefinitionInput<
  Id extends string,
  I extends Readonly<Record<string, InputSpec>>,
  P extends Readonly<Record<string, ParamKind>>,
> {
  /** The op id: names the engine method, the kernel file in every backend (snake_case) and the telemetry key. */
  readonly id: Id;
  /** One line saying what the op computes. */
  readonly doc: string;
  /** What work().batch counts, in words: the unit gpuMinBatchSize is compared with ('rows of a (M)'). */
  readonly batchDoc: string;
  /** Tensor inputs in order (the first selects the kernel's dtype); the order is every traversal's order. */
  readonly inputs: I;
  /** Scalar parameters. */
  readonly params: P;
  /** The same op over other tensor references: fn applied to every input in `inputs` order, parameters kept. */
  map<A, B>(op: OpShape<Id, I, P, A>, fn: (tensor: A, name: string) => B): OpShape<Id, I, P, B>;
  /**
   * The op's own checks (shapes across inputs, parameter ranges), after every input's dtype and rank passed; returns
   * the output specs. Throws InvalidArgumentError naming the argument, the value and the rule.
   */
  outputs(op: OpShape<Id, I, P, TensorSpec>): TensorSpec[];
  /** How much work the op is, given its validated outputs. */
  work(op: OpShape<Id, I, P, TensorSpec>, outputs: readonly TensorSpec[]): OpWork;
}

/** One op's definition: what defineOp was given, plus its input names in order. */
export interface OpDefinition<
  Id extends string,
  I extends Readonly<Record<string, InputSpec>>,
  P extends Readonly<Record<string, ParamKind>>,
> extends OpDefinitionInput<Id, I, P> {
  /** The names of `inputs`, in order. */
  readonly inputNames: readonly string[];
  /** The specs of `inputs`, in the same order. */
  readonly inputSpecs: readonly InputSpec[];
}

/** Declares an op; see OpDefinitionInput. Input and parameter names are kept as literal types. */
export function defineOp<
  const Id extends string,
  const I extends Readonly<Record<string, InputSpec>>,
  const P extends Readonly<Record<string, ParamKind>>,
>(definition: OpDefinitionInput<Id, I, P>): OpDefinition<Id, I, P> {
  return { ...definition, inputNames: Object.keys(definition.inputs), inputSpecs: Object.values(definition.inputs) };
}
