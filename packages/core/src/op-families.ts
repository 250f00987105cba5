// Op families: ops whose definitions differ only in their id, doc and arithmetic, built by one factory each so that
// a new member is a few lines (and backends can run every member of a family with one generic kernel).
import type { DType } from './dtype.ts';
import { defineOp } from './op-definition.ts';
import { bytesOf, fail, FLOATS, outBytesOf, outElemsOf, rows } from './op-rules.ts';
import { sameShape } from './shape.ts';

/** Elementwise a (op) b, b the same shape as a or a suffix of it (broadcast over a's leading dimensions). */
export function binaryElementwise<const Id extends string>(id: Id, doc: string) {
  return defineOp({
    id,
    doc,
    batchDoc: 'rows of a (every dimension but the last)',
    inputs: {
      /** Left operand. */
      a: { dtypes: FLOATS },
      /** Right operand: a.shape, or a suffix of a.shape (broadcast). */
      b: { dtypes: FLOATS, sameDtypeAs: 'a' },
    },
    params: {},
    map: (op, fn) => ({ op: id, a: fn(op.a, 'a'), b: fn(op.b, 'b') }),
    outputs(op) {
      const suffix = op.a.shape.slice(op.a.shape.length - op.b.shape.length);
      if (op.b.shape.length > op.a.shape.length || !sameShape(suffix, op.b.shape)) {
        fail(id, 'b.shape', [...op.b.shape], `must equal a.shape [${op.a.shape.join(', ')}] or a suffix of it`);
      }
      return [{ dtype: op.a.dtype, shape: op.a.shape }];
    },
    work: (op, outputs) => ({
      flops: outElemsOf(outputs),
      bytes: bytesOf(op.a) + bytesOf(op.b) + outBytesOf(outputs),
      batch: rows(op.a),
    }),
  });
}

/** What a unary elementwise op is, besides its id. */
export interface UnaryElementwise<Id extends string, D extends readonly DType[] = readonly DType[]> {
  /** The op id. */
  readonly id: Id;
  /** One line saying what it computes. */
  readonly doc: string;
  /** Dtypes of x (the output has x's dtype and shape). */
  readonly dtypes: D;
  /** Arithmetic operations per element, for the roofline prior. */
  readonly flopsPerElement: number;
}

/**
 * f(x) elementwise, x's dtype and shape out, no parameters. Every backend runs the members of this family with one
 * generic kernel each: `<op>_<dtype>(x, out, n)` natively, `<op>.wgsl` with bindings x, out and params n.
 */
export function unaryElementwise<const Id extends string, const D extends readonly DType[]>(
  unary: UnaryElementwise<Id, D>,
) {
  const definition = defineOp({
    id: unary.id,
    doc: unary.doc,
    batchDoc: 'rows of x (every dimension but the last)',
    inputs: {
      /** Input, any shape. */
      x: { dtypes: unary.dtypes },
    },
    params: {},
    map: (op, fn) => ({ op: unary.id, x: fn(op.x, 'x') }),
    outputs: (op) => [{ dtype: op.x.dtype, shape: op.x.shape }],
    work: (op, outputs) => ({
      flops: outElemsOf(outputs) * unary.flopsPerElement,
      bytes: bytesOf(op.x) + outBytesOf(outputs),
      batch: rows(op.x),
    }),
  });
  return { ...definition, family: UNARY };
}

/** The unary elementwise family's tag on a definition. */
export const UNARY: 'unary' = 'unary';
