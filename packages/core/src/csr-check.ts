// spreadActivation's CSR arrays are checked before any backend runs them: kernels index memory with them, and a
// malformed graph would be clamped or read out of bounds, a wrong answer with no error. The check is O(nodes +
// edges), so it runs once per pair of (rowPtr, colIdx) storages: tensors never change, so a pair once valid stays so.
import { InvalidArgumentError } from './errors.ts';
import type { Storage } from './tensor.ts';

/** The (rowPtr, colIdx) storage pairs found valid, per engine. */
export class CsrChecks {
  /** rowPtr storage -> the colIdx storage it was found valid with. */
  private readonly valid = new WeakMap<Storage, Storage>();

  /** Whether this pair was checked and found valid. */
  isValid(rowPtr: Storage, colIdx: Storage): boolean {
    return this.valid.get(rowPtr) === colIdx;
  }

  /** Checks the pair's bytes (see checkCsr), then remembers it as valid. */
  check(rowPtr: Storage, rowBytes: Uint8Array, colIdx: Storage, colBytes: Uint8Array): void {
    checkCsr(u32(rowBytes), u32(colBytes));
    this.valid.set(rowPtr, colIdx);
  }
}

/**
 * Throws InvalidArgumentError naming the first bad entry unless rowPtr starts at 0, never decreases and ends at the
 * edge count (colIdx.length), and every colIdx entry is a node (< rowPtr.length - 1).
 */
export function checkCsr(rowPtr: Uint32Array, colIdx: Uint32Array): void {
  const nodes = rowPtr.length - 1;
  const edges = colIdx.length;
  if (nodes < 0) throw new InvalidArgumentError('spreadActivation.rowPtr.shape[0]', 0, 'must be >= 1 (node count + 1)');
  if (rowPtr[0] !== 0) throw new InvalidArgumentError('spreadActivation.rowPtr[0]', rowPtr[0], 'must be 0');
  for (let i = 0; i < nodes; i++) {
    const begin = rowPtr[i] ?? 0;
    const end = rowPtr[i + 1] ?? 0;
    if (end < begin)
      throw new InvalidArgumentError(
        `spreadActivation.rowPtr[${i + 1}]`,
        end,
        `must be >= rowPtr[${i}] (${begin}): row pointers never decrease`,
      );
  }
  if (rowPtr[nodes] !== edges)
    throw new InvalidArgumentError(
      `spreadActivation.rowPtr[${nodes}]`,
      rowPtr[nodes],
      `must equal the edge count, colIdx.shape[0] (${edges})`,
    );
  for (let e = 0; e < edges; e++) {
    const j = colIdx[e] ?? 0;
    if (j >= nodes)
      throw new InvalidArgumentError(
        `spreadActivation.colIdx[${e}]`,
        j,
        `must be a node index < ${nodes} (initial.shape[0])`,
      );
  }
}

/** The u32 values of little-endian bytes (copied when misaligned). */
function u32(bytes: Uint8Array): Uint32Array {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >> 2);
}
