import type { DType } from '../dtype.ts';
import type { OpKind } from '../ops.ts';
import type { SelectionReason } from '../scheduler/selection.ts';

/** One attempt to run an op on one backend (a fallback adds a second event for the same call). */
export interface OpEvent {
  /** Increasing per engine. */
  readonly seq: number;
  /** Call this attempt belongs to (shared by its fallbacks). */
  readonly callId: number;
  /** 1 for the first backend tried, 2+ for fallbacks. */
  readonly attempt: number;
  /** Op id. */
  readonly op: OpKind;
  /** Caller's name for the call (e.g. a graph node, 'layer0.attn.q_proj'), when given. */
  readonly label: string | undefined;
  /** Dtype of the op's first input. */
  readonly dtype: DType;
  /** Shapes of the inputs, e.g. "64x64, 64x64". */
  readonly shapes: string;
  /** Backend tried. */
  readonly backend: string;
  /** Why that backend. */
  readonly reason: SelectionReason;
  /** The estimates per backend the decision compared, ms (the plan's costsMs: shared by the call's attempts, not copied). */
  readonly costsMs: Readonly<Record<string, number>>;
  /** Whether it produced the result. */
  readonly ok: boolean;
  /** The error, when it failed. */
  readonly error: string | undefined;
  /** Clock time at start, ms. */
  readonly startMs: number;
  /** Wall time of the attempt including transfers, ms. */
  readonly durationMs: number;
  /** Time the backend reported for the kernel, ms (undefined when it failed). */
  readonly kernelMs: number | undefined;
  /** Scheduler's estimate, ms. */
  readonly estimatedMs: number;
  /** Work, FLOP. */
  readonly flops: number;
  /** Bytes moved between host and backends for this attempt. */
  readonly bytesMoved: number;
}

/** Something that happened to a backend rather than to one op. */
export interface NoticeEvent {
  /** Increasing per engine (shared with OpEvent). */
  readonly seq: number;
  /** Clock time, ms. */
  readonly atMs: number;
  /**
   * What happened. 'cost-model-reset': consecutive measurements of (op, backend) at one size far off the cost model's
   * estimate dropped what it had learned for that size; it is re-learned from them (other sizes are kept).
   * 'tensor-recomputed': an op's result whose only copy was lost with its backend before it was read is being
   * computed again (the run that follows is an ordinary op call in the telemetry). 'profile-loaded',
   * 'profile-ignored' (corrupt, or of other devices, version or format) and 'profile-store-failed' (the store could not
   * be read or written; the engine learns in memory): the engine's profile (backend 'engine'). 'backend-warmed':
   * a GPU backend ran an op for the first time in the background while another backend served its calls (reason
   * `warming`); 'warm-up-failed': that run failed (the failure counts against the backend like a failed call).
   * 'sequence-step-by-step': a backend could not prepare a recorded sequence (graph replay) to run in one call, so
   * it runs one call per step; the detail says why.
   */
  readonly kind:
    | 'backend-ready'
    | 'backend-unavailable'
    | 'backend-unhealthy'
    | 'backend-recovered'
    | 'circuit-open'
    | 'circuit-half-open'
    | 'circuit-closed'
    | 'cost-model-reset'
    | 'tensor-recomputed'
    | 'profile-loaded'
    | 'profile-ignored'
    | 'profile-store-failed'
    | 'backend-warmed'
    | 'warm-up-failed'
    | 'sequence-step-by-step';
  /** Backend concerned. */
  readonly backend: string;
  /** Op concerned, for circuit changes, cost-model resets and recomputed results. */
  readonly op: string | undefined;
  /**
   * What happened, in words: for backend-ready the device's name; for backend-unavailable, backend-unhealthy and
   * backend-recovered the reason; for circuit changes the success rate; for cost-model-reset the measurements and the
   * estimate they were off from; for tensor-recomputed the output and the loss; for profiles the source and what
   * was loaded, or why not.
   */
  readonly detail: string;
}
