// What the GPU runner checks besides the cases' outputs: outputs are poisoned before each case (so a kernel that
// leaves part of an output unwritten shows as NaN instead of as a stale right answer), and the HIP backend's
// out-of-memory path (a real allocator's refusal is an OutOfMemoryError naming the size, and the device works after).
import {
  byteLengthOf,
  errorMessage,
  inferOutputs,
  numel,
  OutOfMemoryError,
  type CapableBackend,
  type Op,
} from '@tandem/core';
import type { HostTensor } from '@tandem/reference';
import { specOf } from '../run-case.ts';

/**
 * Uploads and frees a buffer of 0xff bytes (NaN as f32 and f16, -1 as integers) for each output of `op`, so that a
 * caching allocator or buffer pool hands those blocks to the outputs that follow.
 */
export async function poisonOutputs(backend: CapableBackend, op: Op<HostTensor>): Promise<void> {
  for (const spec of inferOutputs(specOf(op))) {
    const bytes = byteLengthOf(spec.dtype, numel(spec.shape));
    if (bytes === 0) continue;
    backend.free(await backend.upload(new Uint8Array(bytes).fill(0xff), spec));
  }
}

/** One check's outcome: undefined when it passed, else what went wrong. */
export type CheckOutcome = string | undefined;

/**
 * An output of 2^40 f32 (4 TiB, past any device) must be refused with OutOfMemoryError naming the size, and the
 * backend must then still run a small op right.
 */
export async function outOfMemoryCheck(backend: CapableBackend): Promise<CheckOutcome> {
  const x = await backend.upload(new Uint8Array(Float32Array.of(1, 2, 3, 4).buffer), { dtype: 'f32', shape: [4] });
  try {
    const huge = { dtype: 'f32', shape: [2 ** 40] } as const;
    const refused = await backend
      .run({ op: 'scale', x: { dtype: 'f32', shape: [4], buffer: x }, factor: 2 }, [huge])
      .then(
        () => 'a 4 TiB output was allocated',
        (error: unknown) =>
          error instanceof OutOfMemoryError && error.requestedBytes > 0
            ? undefined
            : `not an OutOfMemoryError naming the size: ${errorMessage(error)}`,
      );
    if (refused !== undefined) return refused;
    const after = await backend.run({ op: 'scale', x: { dtype: 'f32', shape: [4], buffer: x }, factor: 2 }, [
      { dtype: 'f32', shape: [4] },
    ]);
    const [out] = after.outputs;
    if (out === undefined) return 'no output after the refusal';
    const bytes = await backend.download(out);
    backend.free(out);
    const doubled = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 4));
    return doubled.join(',') === '2,4,6,8'
      ? undefined
      : `after the refusal 2 x [1, 2, 3, 4] gave [${doubled.join(', ')}]`;
  } finally {
    backend.free(x);
  }
}
