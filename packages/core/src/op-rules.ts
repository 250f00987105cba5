// Helpers the op definitions (ops/*.ts) share: failing with an InvalidArgumentError, reading dimensions, and the
// byte and element counts their work estimates use.
import { isQuantized, QUANT_BLOCK, type DType } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { numel } from './shape.ts';
import type { TensorSpec } from './tensor-spec.ts';

// Literal tuples (not DType[]), so that an op's accepted dtypes are part of its definition's type and the engine's
// methods take exactly those (Engine.matmul's inputs are Tensor<'f32' | 'f16'>).
/** f32 or f16: the float dtypes of matmul and the elementwise ops. */
export const FLOATS = ['f32', 'f16'] as const satisfies readonly DType[];
/** f32 only. */
export const F32 = ['f32'] as const satisfies readonly DType[];
/** Every dtype but the quantized ones. */
export const UNQUANTIZED = ['f32', 'f16', 'i32', 'u32'] as const satisfies readonly DType[];

/** Throws InvalidArgumentError for `<op>.<arg> = value: limit`. */
export function fail(op: string, arg: string, value: unknown, limit: string): never {
  throw new InvalidArgumentError(`${op}.${arg}`, value, limit);
}

/** Throws unless `value` is a finite number. */
export function expectFinite(op: string, arg: string, value: number): void {
  if (!Number.isFinite(value)) fail(op, arg, value, 'must be a finite number');
}

/** Dimension i of a spec (negative counts from the end); 1 past its rank. */
export function dim(t: TensorSpec, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

/** The last dimension (1 for a scalar). */
export function lastDim(t: TensorSpec): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

/** Rows of the last dimension (1 for rank <= 1). */
export function rows(t: TensorSpec): number {
  return t.shape.length <= 1 ? 1 : numel(t.shape) / Math.max(1, lastDim(t));
}

/** Bytes of a tensor in its dtype (quantized blocks included). */
export function bytesOf(t: TensorSpec): number {
  const n = numel(t.shape);
  if (isQuantized(t.dtype)) return (n / QUANT_BLOCK) * (t.dtype === 'q8_0' ? 34 : 18);
  return n * (t.dtype === 'f16' ? 2 : 4);
}

/** Bytes of the first output. */
export function outBytesOf(outputs: readonly TensorSpec[]): number {
  const out = outputs[0];
  return out === undefined ? 0 : bytesOf(out);
}

/** Elements of the first output. */
export function outElemsOf(outputs: readonly TensorSpec[]): number {
  const out = outputs[0];
  return out === undefined ? 0 : numel(out.shape);
}
