// Runs one case's op on a backend through the CapableBackend interface only: upload, run, download, free.
import {
  inferOutputs,
  mapOpTensors,
  opInputs,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type Op,
  type TensorSpec,
} from '@tandem/core';
import type { HostTensor } from './host-tensor.ts';

/** The op with each tensor reduced to its spec (dtype and shape). */
export function specOf(op: Op<HostTensor>): Op<TensorSpec> {
  return mapOpTensors(op, (t) => ({ dtype: t.dtype, shape: t.shape }));
}

/** Uploads the op's inputs, runs it, downloads its outputs, and frees every buffer it allocated (also on failure). */
export async function runCaseOnBackend(backend: CapableBackend, op: Op<HostTensor>): Promise<HostTensor[]> {
  const specs = inferOutputs(specOf(op));
  const allocated: DeviceBuffer[] = [];
  try {
    const bound = new Map<HostTensor, BoundTensor>();
    for (const { tensor } of opInputs(op)) {
      if (bound.has(tensor)) continue; // the same tensor twice (e.g. k = v) is uploaded once
      const buffer = await backend.upload(tensor.data, { dtype: tensor.dtype, shape: tensor.shape });
      allocated.push(buffer);
      bound.set(tensor, { dtype: tensor.dtype, shape: tensor.shape, buffer });
    }
    const boundOp = mapOpTensors(op, (tensor, name) => {
      const b = bound.get(tensor);
      if (b === undefined) throw new Error(`input ${name} was not uploaded`);
      return b;
    });
    const result = await backend.run(boundOp, specs);
    allocated.push(...result.outputs);
    if (result.outputs.length !== specs.length)
      throw new Error(
        `${backend.name} returned ${result.outputs.length} outputs for ${op.op}, expected ${specs.length}`,
      );
    const downloaded = await Promise.all(result.outputs.map((b) => backend.download(b)));
    return specs.map((spec, i) => ({
      dtype: spec.dtype,
      shape: [...spec.shape],
      data: downloaded[i] ?? new Uint8Array(0),
    }));
  } finally {
    for (const buffer of allocated) {
      try {
        backend.free(buffer);
      } catch {
        // free() must not throw; a backend that does still gets every other buffer freed.
      }
    }
  }
}
