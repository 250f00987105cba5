import type { BackendKind } from '../backend.ts';
import type { OpKind } from '../ops.ts';

/** How the engine chooses a backend for each op. */
export type Strategy = 'auto' | 'gpu-preferred' | 'cpu-preferred' | { readonly only: string };

/**
 * Why a backend was chosen: every decision carries one, and telemetry records it. The estimates it compared are
 * beside it (SchedulePlan.costsMs, OpEvent.costsMs), not in it.
 */
export type SelectionReason =
  | { readonly kind: 'gpu-available' }
  | { readonly kind: 'gpu-unavailable'; readonly why: string }
  | { readonly kind: 'cpu-fallback'; readonly why: string }
  | { readonly kind: 'cost-model'; readonly measured: boolean }
  | {
      readonly kind: 'memory-constraint';
      readonly backend: string;
      readonly requiredBytes: number;
      readonly availableBytes: number;
    }
  | { readonly kind: 'user-preference'; readonly strategy: string }
  | { readonly kind: 'force-cpu' }
  | { readonly kind: 'below-min-batch'; readonly batch: number; readonly minBatch: number }
  | { readonly kind: 'below-min-speedup'; readonly gpu: string; readonly speedup: number; readonly minSpeedup: number }
  | { readonly kind: 'error-fallback'; readonly failed: string; readonly error: string }
  | { readonly kind: 'circuit-open'; readonly backend: string; readonly successRate: number }
  | { readonly kind: 'exploring'; readonly backend: string; readonly why: 'unmeasured' | 'stale' | 'probe' | 'profile' }
  | { readonly kind: 'hysteresis'; readonly kept: string }
  | { readonly kind: 'warming'; readonly backend: string }
  | { readonly kind: 'only-capable'; readonly skipped: readonly SkippedBackend[] }
  | { readonly kind: 'replay'; readonly label: string };

/** A backend left out of a decision, and why. */
export interface SkippedBackend {
  /** Backend name. */
  readonly backend: string;
  /** Why it was left out. */
  readonly reason: string;
}

/** The scheduler's answer for one op. */
export interface BackendSelection {
  /** Backend to run on first. */
  readonly backend: string;
  /** Why. */
  readonly reason: SelectionReason;
  /** Estimated time on it including transfers, ms. */
  readonly estimatedMs: number;
}

/** A decision plus what to try if the chosen backend fails. */
export interface SchedulePlan {
  /** The choice. */
  readonly selection: BackendSelection;
  /** Backends to try next, in order, if the choice fails. */
  readonly fallbacks: readonly string[];
  /** Backends not considered, with reasons. */
  readonly skipped: readonly SkippedBackend[];
  /** Estimated time per considered backend (compute + transfers), ms. */
  readonly costsMs: Readonly<Record<string, number>>;
  /** Of costsMs, the part per backend that is moving inputs there and the expected read-back of the outputs, ms. */
  readonly transfersMs: Readonly<Record<string, number>>;
  /** The call takes a half-open circuit's probe slot on the chosen backend. */
  readonly probe: boolean;
  /**
   * A GPU backend `auto` would have chosen but that has never run this op and compiles on a first run: the engine runs
   * the op there once in the background (its warm-up: pipeline compilation) while the chosen backend serves the call.
   */
  readonly warmUp?: string | undefined;
}

/** Scheduler settings; every field has a default. */
export interface SchedulerConfig {
  /** Hysteresis: switching a size bucket to another backend needs it to be this many times faster at once… */
  readonly gpuSpeedupThreshold: number;
  /** …or estimated faster on this many consecutive decisions. */
  readonly switchAfter: number;
  /**
   * Policy of `auto` (1 = off): a GPU gets an op only when its estimate is at least this many times faster than the best
   * CPU backend's, to save power or leave a shared GPU to others (the decision's reason is then `below-min-speedup`).
   */
  readonly gpuMinSpeedup: number;
  /** Prior only: with no GPU measurement yet, ops with a batch (OpWork.batch) below this stay on the CPU. */
  readonly gpuMinBatchSize: number;
  /**
   * gpuMinBatchSize per op, over the global one: keyed by op id (`cosineSimilarity`) or by op id and input dtypes as
   * the cost model keys calls (`matmul|f16`, `quantizedMatmul|f32+q4_0`); the most specific key wins.
   */
  readonly gpuMinBatchSizeByOp: MinBatchByOp;
  /** A backend not measured on an op for this many decisions of it is re-measured (if its cost is close). */
  readonly exploreEvery: number;
  /** Exploration is allowed only when the explored backend's estimate is within this factor of the best. */
  readonly exploreMaxRatio: number;
  /**
   * Whether `auto` explores a software GPU (SwiftShader): off by default, as its first runs compile pipelines for
   * seconds mid-run and it is slower than the CPU backends it emulates on; it still runs what a strategy sends it.
   */
  readonly exploreSoftware: boolean;
  /**
   * Whether `auto` serves an op from the CPU while a GPU it would choose runs that op for the first time in the
   * background (reason `warming`); off, the GPU's first run (its warm-up) is the caller's call, as with a strategy.
   */
  readonly warmInBackground: boolean;
  /** Only CPU backends are used. */
  readonly forceCpu: boolean;
}

/** Per-op gpuMinBatchSize: `{ cosineSimilarity: 1, 'matmul|f16': 16 }` (op id, or op id | dtypes). */
export type MinBatchByOp = Readonly<Partial<Record<OpKind | `${OpKind}|${string}`, number>>>;

export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfig = {
  gpuSpeedupThreshold: 1.5,
  switchAfter: 3,
  gpuMinSpeedup: 1,
  gpuMinBatchSize: 64,
  gpuMinBatchSizeByOp: {},
  exploreEvery: 50,
  exploreMaxRatio: 2,
  exploreSoftware: false,
  warmInBackground: true,
  forceCpu: false,
};

/** One backend as the scheduler sees it for one op (built by the engine). */
export interface Candidate {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: BackendKind;
  /** Tie-break and fallback order, lower first. */
  readonly priority: number;
  /** Only a last resort: chosen when nothing else is eligible, else placed at the end of the fallbacks. */
  readonly fallbackOnly: boolean;
  /** A device emulated on the CPU (SwiftShader); absent: false. */
  readonly software?: boolean;
  /** Its first run of an op compiles pipelines (CapableBackend.compilesOnFirstRun); absent: false. */
  readonly compilesOnFirstRun?: boolean;
  /** Why it can't take this op at all (unsupported, unavailable, unhealthy); undefined when it can. */
  readonly unusable: string | undefined;
  /** Compute-time prior for this op, ms (roofline or the backend's own estimate). */
  readonly priorMs: number;
  /** Time to move the inputs that are not resident there yet, plus the expected read-back of the outputs, ms. */
  readonly transferMs: number;
  /** Bytes it would need to allocate (outputs + inputs not resident). */
  readonly requiredBytes: number;
  /** Bytes it has free, when known. */
  readonly availableBytes: number | undefined;
}

/**
 * Readable one-line form of a reason, for logs and debug tables; with `costsMs` (the estimates the decision compared:
 * SchedulePlan.costsMs, OpEvent.costsMs) a cost-model or hysteresis reason lists them.
 */
export function describeReason(reason: SelectionReason, costsMs?: Readonly<Record<string, number>>): string {
  const costs = (): string =>
    costsMs === undefined
      ? ''
      : `: ${Object.entries(costsMs)
          .map(([b, ms]) => `${b} ${formatMs(ms)}`)
          .join(', ')}`;
  switch (reason.kind) {
    case 'gpu-available':
      return 'GPU available';
    case 'gpu-unavailable':
      return `GPU unavailable: ${reason.why}`;
    case 'cpu-fallback':
      return `CPU fallback: ${reason.why}`;
    case 'cost-model':
      return `cost model (${reason.measured ? 'measured' : 'prior'})${costs()}`;
    case 'memory-constraint':
      return `memory: ${reason.backend} needs ${reason.requiredBytes} B, has ${reason.availableBytes} B`;
    case 'user-preference':
      return `user preference: ${reason.strategy}`;
    case 'force-cpu':
      return 'forceCpu';
    case 'below-min-batch':
      return `batch ${reason.batch} below gpuMinBatchSize ${reason.minBatch} (no GPU measurement yet)`;
    case 'below-min-speedup':
      return `${reason.gpu} only ${reason.speedup.toFixed(2)}x faster than the CPU, below gpuMinSpeedup ${reason.minSpeedup}`;
    case 'error-fallback':
      return `fallback after ${reason.failed} failed: ${reason.error}`;
    case 'circuit-open':
      return `circuit open on ${reason.backend} (success rate ${reason.successRate.toFixed(2)})`;
    case 'exploring':
      return `exploring ${reason.backend} (${reason.why})`;
    case 'hysteresis':
      return `kept ${reason.kept} (hysteresis)${costs()}`;
    case 'warming':
      return `${reason.backend} is warming up (its first run of this op, in the background)`;
    case 'only-capable':
      return `only capable backend (${reason.skipped.map((s) => `${s.backend}: ${s.reason}`).join('; ')})`;
    case 'replay':
      return `replayed: ${reason.label} is a step of a recorded sequence (no decision per step)`;
  }
}

/** Milliseconds with sensible precision. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)}us`;
  if (ms < 10) return `${ms.toFixed(3)}ms`;
  return `${ms.toFixed(1)}ms`;
}
