// Typed reads of op outputs: the engine's Tensor.read() returns a union over dtypes; these narrow it without casts.
import { BackendError, type Tensor } from '@tandem/core';

/** The data of an f32 tensor. */
export async function readF32(tensor: Tensor, what: string): Promise<Float32Array> {
  const data = await tensor.read();
  if (!(data instanceof Float32Array)) throw new BackendError('BAD_OUTPUT', 'engine', `${what} should be f32, got ${tensor.dtype}`);
  return data;
}

/** The data of an i32 tensor. */
export async function readI32(tensor: Tensor, what: string): Promise<Int32Array> {
  const data = await tensor.read();
  if (!(data instanceof Int32Array)) throw new BackendError('BAD_OUTPUT', 'engine', `${what} should be i32, got ${tensor.dtype}`);
  return data;
}

/** Disposes every tensor given, skipping undefined ones. */
export function disposeAll(tensors: ReadonlyArray<Tensor | undefined>): void {
  for (const t of tensors) t?.dispose();
}
