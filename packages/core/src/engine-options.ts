// What an engine is built with, and what explain() answers.
import type { ProfileStore } from './profile/profile-data.ts';
import type { CapableBackend } from './backend.ts';
import type { Clock } from './clock.ts';
import type { OpWork } from './op-definition.ts';
import type { CostModelConfig } from './scheduler/cost-model.ts';
import type { TelemetrySetting } from './engine-telemetry.ts';
import type { DecisionCacheConfig } from './scheduler/decision-cache.ts';
import type { SchedulePlan, SchedulerConfig, Strategy } from './scheduler/selection.ts';
import type { TrackerConfig } from './scheduler/tracker.ts';

/** Everything createEngine / new Engine accept; only `backends` is required. */
export interface EngineOptions {
  /** Backends to schedule over (initialised by Engine.create). */
  readonly backends: readonly CapableBackend[];
  /** Default strategy for every call (default 'auto'). */
  readonly strategy?: Strategy;
  /** Use CPU backends only. */
  readonly forceCpu?: boolean;
  /** Scheduler tuning (hysteresis, min batch, exploration). */
  readonly scheduler?: Partial<Omit<SchedulerConfig, 'forceCpu'>>;
  /** Cost model tuning (window, half-life). */
  readonly costModel?: Partial<CostModelConfig>;
  /** Circuit breaker tuning (success-rate threshold, cool-down). */
  readonly tracker?: Partial<TrackerConfig>;
  /** Reuse of plans by identical calls (`{ reuse: 0 }` plans every call afresh). */
  readonly decisionCache?: Partial<DecisionCacheConfig>;
  /** Events kept in the telemetry ring (default 10,000). */
  readonly telemetryCapacity?: number;
  /**
   * What the telemetry keeps: true or 'events' (default) every op attempt in a ring of telemetryCapacity plus the
   * counters; false or 'counters' only the counters (summary, debugTable, Prometheus stay exact) and the notices.
   */
  readonly telemetry?: TelemetrySetting;
  /** An attempt running longer than this is abandoned and re-run elsewhere, ms (default 60,000). */
  readonly opDeadlineMs?: number;
  /** Minimum time between attempts to re-initialise an unhealthy backend, ms (default 5,000). */
  readonly recoveryIntervalMs?: number;
  /** Time source (tests inject a fake one). */
  readonly clock?: Clock;
  /**
   * Where the engine's profile (what it learned of its devices) is loaded from at start and saved to as it learns
   * and on dispose (default none: `engine.profile` still exports and imports). createEngine picks one per host.
   */
  readonly profile?: ProfileStore;
  /** How long after the engine learns something its profile is saved, ms (default 5,000; one save per interval). */
  readonly profileSaveIntervalMs?: number;
}

/** The decision explain() reports, without running anything. */
export interface Explanation extends SchedulePlan {
  /** Op id. */
  readonly op: string;
  /** Work of the call. */
  readonly work: OpWork;
  /**
   * Memory the call needs on each backend that can take it (those skipped for memory or an open circuit too), beside
   * costsMs and transfersMs: what the memory check compares with the bytes free there.
   */
  readonly memory: Readonly<Record<string, MemoryNeed>>;
}

/** What a call would allocate on one backend. */
export interface MemoryNeed {
  /** Bytes of the inputs not resident there yet (copied there first). */
  readonly inputBytes: number;
  /** Bytes of the outputs. */
  readonly outputBytes: number;
  /** Temporary bytes the backend's kernel allocates beside its outputs (CapableBackend.scratchBytes). */
  readonly scratchBytes: number;
  /** inputBytes + outputBytes + scratchBytes. */
  readonly totalBytes: number;
  /** Bytes the backend has free now, when it says. */
  readonly availableBytes: number | undefined;
}
