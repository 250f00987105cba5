// Which work the ROCm backend runs on the JS thread while the device's queue is idle (RocmBackendOptions.inline):
// two thread hand-offs (wake the worker, wake the JS loop) cost more than a short kernel (packages/rocm/README.md).
import { InvalidArgumentError, opWork, type Op, type PerformanceProfile, type TensorSpec } from '@tandem/core';
import type { RecordedSequence } from '@tandem/core';

/** Which work runs on the JS thread when the device's queue is idle. */
export interface InlineLimits {
  /** Ops whose roofline time on this device (the larger of flops and bytes over its peak rates) is at most this, ms. */
  readonly opMs: number;
  /** Uploads and downloads of at most this many bytes. */
  readonly copyBytes: number;
  /** Recorded sequences (graph replay) whose steps' roofline times add up to at most this, ms (default: opMs). */
  readonly sequenceMs?: number;
}

/**
 * On a GPU: ops up to 0.02 ms at roofline (our kernels reach 5-50% of it, so at most a few tenths of a ms of
 * waiting), copies up to 4 MiB (a fraction of a millisecond into pinned memory: packages/rocm/README.md), and
 * sequences up to 0.1 ms at roofline (a 7B-shape decoder layer: docs/decisions.md, issue 28).
 */
export const DEFAULT_INLINE_LIMITS: InlineLimits = { opMs: 0.02, copyBytes: 4 << 20, sequenceMs: 0.1 };

/** Throws InvalidArgumentError naming the first limit that is not a number >= 0. */
export function checkInlineLimits(inline: InlineLimits | false | undefined): void {
  if (inline === undefined || inline === false) return;
  if (!(inline.opMs >= 0))
    throw new InvalidArgumentError('inline.opMs', inline.opMs, 'must be a number of ms >= 0 (Infinity: every op)');
  if (!(inline.copyBytes >= 0))
    throw new InvalidArgumentError(
      'inline.copyBytes',
      inline.copyBytes,
      'must be a byte count >= 0 (Infinity: every copy)',
    );
  if (inline.sequenceMs !== undefined && !(inline.sequenceMs >= 0))
    throw new InvalidArgumentError(
      'inline.sequenceMs',
      inline.sequenceMs,
      'must be a number of ms >= 0 (Infinity: every sequence)',
    );
}

/** An op's roofline time on a device, ms: the larger of its flops and bytes over the peak rates. */
function rooflineOf(spec: Op<TensorSpec>, outputs: readonly TensorSpec[], profile: PerformanceProfile): number {
  const work = opWork(spec, outputs);
  return Math.max(work.flops / profile.flopsPerMs, work.bytes / profile.bytesPerMs);
}

/** Whether an op is short enough to run on the JS thread. */
export function inlinesOp(
  limits: InlineLimits | false,
  profile: PerformanceProfile,
  spec: Op<TensorSpec>,
  outputs: readonly TensorSpec[],
): boolean {
  return limits !== false && rooflineOf(spec, outputs, profile) <= limits.opMs;
}

/** Whether a copy is short enough to run on the JS thread. */
export function inlinesCopy(limits: InlineLimits | false, bytes: number): boolean {
  return limits !== false && bytes <= limits.copyBytes;
}

/** Whether a recorded sequence is short enough to run on the JS thread. */
export function inlinesSequence(
  limits: InlineLimits | false,
  profile: PerformanceProfile,
  sequence: RecordedSequence,
): boolean {
  if (limits === false) return false;
  let ms = 0;
  for (const step of sequence.steps) ms += rooflineOf(step.spec, step.outputs, profile);
  return ms <= (limits.sequenceMs ?? limits.opMs);
}
