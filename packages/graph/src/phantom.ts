// Phantom tensors: the dtype, shape and residency of a value that does not exist yet (a node's future output),
// so the engine's own explain() can price a node as if its inputs lived where a candidate placement would put
// them. A phantom holds no data: it only ever goes to explain(), which reads storage.byteLength, storage.host
// (present or not) and storage.replicas (which backends). Reading or binding one fails loudly.
import {
  BackendError,
  byteLengthOf,
  numel,
  Storage,
  Tensor,
  type DeviceBuffer,
  type DType,
  type TensorHost,
} from '@tandem/core';

/** Marker for "a host copy exists": explain() only tests storage.host against undefined. */
const HOST_MARKER = new Uint8Array(0);

/** A TensorHost for phantoms: nothing can be read from them. */
const PHANTOM_HOST: TensorHost = {
  bytesForRead: () =>
    Promise.reject(new BackendError('PHANTOM', 'graph', 'a phantom tensor (placement planning) has no data')),
  release: () => undefined,
};

/** Where a value lives during planning: bit 0 = host, bit i + 1 = the i-th backend of the planner's list. */
export type PlaceMask = number;

/** The host's bit in a PlaceMask. */
export const HOST_BIT = 1;

/** The bit of backend `index` (position in the planner's backend list). */
export function backendBit(index: number): number {
  return 2 << index;
}

/** A data-less tensor of `dtype` [shape] resident wherever `mask` says (backend names by position in `backends`). */
export function phantomTensor(
  dtype: DType,
  shape: readonly number[],
  mask: PlaceMask,
  backends: readonly string[],
): Tensor {
  const byteLength = byteLengthOf(dtype, numel(shape));
  const storage = new Storage(dtype, byteLength, (mask & HOST_BIT) !== 0 ? HOST_MARKER : undefined);
  backends.forEach((name, i) => {
    if ((mask & backendBit(i)) !== 0) storage.replicas.set(name, phantomBuffer(name, byteLength));
  });
  return new Tensor(PHANTOM_HOST, storage, dtype, shape);
}

/** The PlaceMask of a real tensor's storage now (unknown backend names are ignored). */
export function maskOf(tensor: Tensor, backends: readonly string[]): PlaceMask {
  const storage = tensor.isContiguous ? tensor.storage : tensor.contiguousCache;
  if (storage === undefined) return HOST_BIT; // a view the engine would gather on the host first
  let mask = storage.host === undefined ? 0 : HOST_BIT;
  for (let i = 0; i < backends.length; i++) if (storage.replicas.has(backends[i] ?? '')) mask |= backendBit(i);
  return mask;
}

function phantomBuffer(backend: string, byteLength: number): DeviceBuffer {
  return { backend, id: -1, byteLength };
}
