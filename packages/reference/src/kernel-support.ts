// What the reference kernels (kernels/<op_id>.ts) share: their table entry's type, argument checks (they are public
// oracles, so a wrong length fails loudly), dimensions of host tensors, and the elementwise families' kernels.
import {
  decodeF16,
  encodeF16,
  InvalidArgumentError,
  type KernelReach,
  type OpKind,
  type OpOf,
  type TensorSpec,
  type UnaryOpKind,
} from '@tandem/core';
import { bytesOf, readF32, readU16 } from './bytes.ts';
import type { HostTensor } from './host-tensor.ts';

/** The reference's kernel of op K: its outputs' bytes from its inputs' bytes. */
export interface ReferenceKernel<K extends OpKind> extends KernelReach {
  /** The outputs' bytes, in inferOutputs' order (the op is validated already). */
  run(op: OpOf<K, HostTensor>): Uint8Array[];
  /** Temporary bytes the kernel allocates beside the outputs (f16 widened, weights expanded, sums); absent: none. */
  scratchBytes?(op: OpOf<K, TensorSpec>, outputs: readonly TensorSpec[]): number;
}

/** Throws unless `values` holds exactly `expected` elements. */
export function expectLength(argument: string, values: { readonly length: number }, expected: number): void {
  if (values.length !== expected)
    throw new InvalidArgumentError(`${argument}.length`, values.length, `must be ${expected}`);
}

/** Throws unless `value` is an integer >= 0. */
export function expectCount(argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(argument, value, 'must be an integer >= 0');
}

/** Dimension i of a tensor (negative counts from the end); 1 past the rank. */
export function dim(t: TensorSpec, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

/** An f32 host tensor's values. */
export function f32(t: HostTensor, argument: string): Float32Array {
  return readF32(t.data, argument);
}

/** Bytes of every tensor of an f16 op widened to f32 copies (its inputs and outputs). */
export function widenedBytes(inputs: readonly TensorSpec[], outputs: readonly TensorSpec[]): number {
  let n = 0;
  for (const t of inputs) n += t.shape.reduce((a, b) => a * b, 1);
  for (const t of outputs) n += t.shape.reduce((a, b) => a * b, 1);
  return 4 * n;
}

/** a (fn) b elementwise in float64, b repeating over a's leading dimensions (b's shape is a suffix of a's). */
export function broadcast(
  op: string,
  a: Float32Array,
  b: Float32Array,
  fn: (x: number, y: number) => number,
): Float32Array {
  const out = new Float32Array(a.length);
  if (a.length === 0) return out;
  if (b.length === 0 || a.length % b.length !== 0) {
    throw new InvalidArgumentError(
      `${op}.b.length`,
      b.length,
      `must divide a.length (${a.length}): b's shape is a suffix of a's`,
    );
  }
  for (let i = 0; i < a.length; i++) out[i] = fn(a[i] ?? 0, b[i % b.length] ?? 0);
  return out;
}

/** The kernel of add or mul: `f32` on f32 values, `f16` on binary16 bits; f16 widens every tensor to f32 scratch. */
export function binaryKernel<K extends 'add' | 'mul'>(
  name: K,
  f32Kernel: (a: Float32Array, b: Float32Array) => Float32Array,
  f16Kernel: (a: Uint16Array, b: Uint16Array) => Uint16Array,
): ReferenceKernel<K> {
  return {
    run: (op) =>
      op.a.dtype === 'f16'
        ? [bytesOf(f16Kernel(readU16(op.a.data), readU16(op.b.data)))]
        : [bytesOf(f32Kernel(f32(op.a, `${name}.a`), f32(op.b, `${name}.b`)))],
    scratchBytes: (op, outputs) => (op.a.dtype === 'f16' ? widenedBytes([op.a, op.b], outputs) : 0),
  };
}

/** f(v) of every value, in float64, rounded once to f32. */
export function mapValues(x: Float32Array, f: (v: number) => number): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = f(x[i] ?? 0);
  return out;
}

/**
 * The kernel of a unary elementwise op (ops of core's unary family): f in float64 per value, rounded to f32; f16
 * values are decoded, computed the same way and rounded to f16 (f16 widens the tensor and its result to f32 scratch).
 */
export function unaryKernel<K extends UnaryOpKind>(name: K, f: (v: number) => number): ReferenceKernel<K> {
  return {
    run: (op) =>
      op.x.dtype === 'f16'
        ? [bytesOf(encodeF16(mapValues(decodeF16(readU16(op.x.data)), f)))]
        : [bytesOf(mapValues(f32(op.x, `${name}.x`), f))],
    scratchBytes: (op, outputs) => (op.x.dtype === 'f16' ? widenedBytes([op.x], outputs) : 0),
  };
}
