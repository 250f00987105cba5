// What the ROCm backend's kernels (kernels/<op_id>.ts) share: their table entry's type, the limits they check
// against (the addon's, and the device's warp size), dimensions of tensors, and the elementwise families' kernels.
import {
  firstInputDtypes,
  kernelName,
  numel,
  type BoundTensor,
  type KernelReach,
  type OpKind,
  type OpOf,
  type TensorSpec,
  type UnaryOpKind,
} from '@tandem/core';
import type { NativeLimits } from './addon-api.ts';
import { nativeCall, nativeParams, type NativeCall, type NativeParamSpec } from './native-params.ts';

/** How quantizedMatmul treats its f32 activations: 'f32' exact, 'q8' rounded to int8 per block of 32 (faster). */
export type QuantizedActivations = 'f32' | 'q8';

/** Choices that change how ops are encoded. */
export interface EncodeOptions {
  /** quantizedMatmul's activations (default 'f32'); 'q8' sets the native q8Activations parameter. */
  readonly quantizedActivations?: QuantizedActivations;
}

/** What the kernels' limits depend on: the addon and the device. */
export interface DeviceLimits {
  /** Threads per warp of the device. */
  readonly warpSize: number;
  /** describe().features. */
  readonly features: readonly string[];
  /** The addon's kernel limits. */
  readonly native: NativeLimits;
  /** The native kernel ids the addon has. */
  readonly kernels: ReadonlySet<string>;
}

/** The ROCm backend's kernel of op K. */
export interface RocmKernel<K extends OpKind> extends KernelReach {
  /** Every native kernel it may call, by id, with the parameters it passes (what the addon's must match). */
  readonly natives: Readonly<Record<string, NativeParamSpec>>;
  /** The native kernel id that runs this op. */
  nativeId(op: OpOf<K, TensorSpec>): string;
  /** The native call for the op (shapes already validated by inferOutputs). */
  encode(op: OpOf<K, BoundTensor>, options: EncodeOptions): NativeCall;
  /** Why this device cannot run the op (one of the addon's limits), if so. */
  refuse?(op: OpOf<K, TensorSpec>, limits: DeviceLimits): string | undefined;
}

/** Dimension i of a tensor (negative counts from the end); 1 past the rank. */
export function dim(t: TensorSpec, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

/** The last dimension (1 for a scalar). */
export function lastDim(t: TensorSpec): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

/** Rows of the last dimension. */
export function rowsOf(t: TensorSpec): number {
  const cols = lastDim(t);
  return cols === 0 ? 0 : numel(t.shape) / cols;
}

/** Parameters of add_* and mul_*: out[i] = a[i] op b[i % bCount] for i < count. */
const BINARY = nativeParams({ count: 'dim', bCount: 'dim' });

/** add or mul: `<op>_f32` / `<op>_f16`. */
export function binaryKernel<K extends 'add' | 'mul'>(kind: K): RocmKernel<K> {
  return {
    natives: { [`${kind}_f32`]: BINARY, [`${kind}_f16`]: BINARY },
    nativeId: (op) => `${kind}_${op.a.dtype}`,
    encode: (op) =>
      nativeCall(BINARY, `${kind}_${op.a.dtype}`, [op.a, op.b], {
        count: numel(op.a.shape),
        bCount: numel(op.b.shape),
      }),
  };
}

/** Parameters of a unary op's kernels: out[i] = f(x[i]) for i < count. */
const UNARY = nativeParams({ count: 'dim' });

/**
 * A unary elementwise op (core's unary family): the addon's `<op_id>_<dtype>` for each dtype its definition
 * accepts (native-rocm/kernels/<op_id>.hip registers them); a build without one refuses the op.
 */
export function unaryKernel(kind: UnaryOpKind): RocmKernel<UnaryOpKind> {
  const name = kernelName(kind);
  const natives: Record<string, NativeParamSpec> = {};
  for (const dtype of firstInputDtypes(kind)) natives[`${name}_${dtype}`] = UNARY;
  return {
    natives,
    nativeId: (op) => `${name}_${op.x.dtype}`,
    encode: (op) => nativeCall(UNARY, `${name}_${op.x.dtype}`, [op.x], { count: numel(op.x.shape) }),
  };
}
