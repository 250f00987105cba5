// Moving conformance cases' host tensors into an Engine and results back out (shared by the reliability run and
// the GPU-machine runner).
import { mapOpTensors, type DType, type Engine, type Op, type Tensor } from '@tandem/core';
import type { HostTensor } from './host-tensor.ts';

/** Host bytes as the typed array engine.tensor() takes for the dtype (copied: alignment). */
export function hostArray(t: HostTensor): Float32Array | Uint16Array | Int32Array | Uint32Array | Uint8Array {
  const bytes = t.data.slice();
  switch (t.dtype) {
    case 'f32':
      return new Float32Array(bytes.buffer);
    case 'f16':
      return new Uint16Array(bytes.buffer);
    case 'i32':
      return new Int32Array(bytes.buffer);
    case 'u32':
      return new Uint32Array(bytes.buffer);
    case 'q8_0':
    case 'q4_0':
      return bytes;
  }
}

/** The op over engine tensors made from its host tensors (each made once), and those tensors to dispose. */
export function toEngineOp(engine: Engine, op: Op<HostTensor>): { op: Op<Tensor>; tensors: Tensor[] } {
  const made = new Map<HostTensor, Tensor>();
  const mapped = mapOpTensors(op, (t) => {
    let tensor = made.get(t);
    if (tensor === undefined) {
      const dtype: DType = t.dtype;
      tensor = engine.tensor(hostArray(t), t.shape, dtype);
      made.set(t, tensor);
    }
    return tensor;
  });
  return { op: mapped, tensors: [...made.values()] };
}

/** Reads outputs back as host tensors (bytes). */
export async function hostOutputs(outputs: readonly Tensor[]): Promise<HostTensor[]> {
  return Promise.all(
    outputs.map(async (t) => {
      return { dtype: t.dtype, shape: [...t.shape], data: await t.readBytes() };
    }),
  );
}
