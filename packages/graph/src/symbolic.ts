// Symbolic tensors: what a graph value will look like (dtype, shape, layout) and where its data comes from at run
// time. Views (reshape, permute, slice) are symbolic tensors over the same root value: metadata, no node, no copy.
import type { Tensor, TensorSpec } from '@tandem/core';

/** One view step, replayed on the root's Tensor at run time with Tensor.reshape / permute / slice. */
export type ViewStep =
  | { readonly kind: 'reshape'; readonly shape: readonly number[] }
  | { readonly kind: 'permute'; readonly axes: readonly number[] }
  | { readonly kind: 'slice'; readonly start: number; readonly end: number };

/** Where a symbolic tensor's data comes from. */
export type Source =
  | { readonly kind: 'input'; readonly carried: boolean }
  | { readonly kind: 'constant'; readonly tensor: Tensor }
  | { readonly kind: 'op'; readonly node: number; readonly output: number }
  | { readonly kind: 'view'; readonly base: SymbolicTensor; readonly step: ViewStep };

/** Element strides and offset into the root's storage, mirrored from core's Tensor so contiguity is known at build. */
export interface Layout {
  /** Elements to step per dimension. */
  readonly strides: readonly number[];
  /** First element's index in the root's storage. */
  readonly offset: number;
  /** Elements in the root's storage. */
  readonly storageElements: number;
}

/** A value of a graph under construction. */
export interface SymbolicTensor extends TensorSpec {
  /** Unique within its builder. */
  readonly id: number;
  /** Name used in errors (the node's name for op outputs, the input's or constant's name, or the view's name). */
  readonly name: string;
  /** Where the data comes from. */
  readonly source: Source;
  /** Id of the value that owns the storage (itself unless a view). */
  readonly root: number;
  /** Strides and offset, as core's Tensor will have them. */
  readonly layout: Layout;
  /** The builder that made it (tensors of two graphs cannot be mixed). */
  readonly owner: object;
}

/** Whether a layout covers its whole storage in row-major order (core's Tensor.isContiguous, at build time). */
export function isContiguousLayout(shape: readonly number[], layout: Layout): boolean {
  let expected = 1;
  let elements = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] ?? 1;
    if (d > 1 && layout.strides[i] !== expected) return false;
    expected *= d;
    elements *= d;
  }
  return layout.offset === 0 && elements === layout.storageElements;
}

/** Row-major strides of a shape. */
export function rowMajorStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i] ?? 1;
  }
  return strides;
}
