// The engine's backend lifecycle: each registered backend's state (available or why not, its profile,
// whether it is re-initialising), initialisation, background recovery of an unhealthy backend, and statuses.
import type { BackendHealth, CapableBackend, PerformanceProfile } from './backend.ts';
import type { Clock } from './clock.ts';
import { errorMessage } from './errors.ts';
import { DEFAULT_PROFILES } from './scheduler/roofline.ts';
import type { Telemetry } from './telemetry/telemetry.ts';

/** A registered backend and what the engine knows about it. */
export interface BackendStatus {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: 'cpu' | 'gpu';
  /** Whether init() succeeded. */
  readonly available: boolean;
  /** Why init() failed, when it did. */
  readonly unavailableReason: string | undefined;
  /** Device name, when available. */
  readonly device: string | undefined;
  /** Whether the device is a GPU emulated on the CPU (SwiftShader, lavapipe): slow for anything a GPU is for. */
  readonly software: boolean;
  /** Health now. */
  readonly health: BackendHealth;
}

/** One backend's state, as decisions read it on every call. */
export interface BackendState {
  /** The backend. */
  readonly backend: CapableBackend;
  /** Whether its last init() succeeded. */
  available: boolean;
  /** Why its last init() failed. */
  unavailableReason: string | undefined;
  /** Its roofline prior. */
  profile: PerformanceProfile;
  /** Its device is emulated on the CPU (SwiftShader): `auto` does not explore it (SchedulerConfig.exploreSoftware). */
  software: boolean;
  /** When its last re-initialisation started. */
  lastRecoveryAt: number;
  /** Whether it is re-initialising now. */
  recovering: boolean;
  /** It initialised once: a later failed re-init is retried (a GPU process restarting under load), never given up. */
  wasReady: boolean;
  /** 'unavailable: <reason>', built once when init fails (decisions read it on every call). */
  unusableText: string;
}

/** What a BackendLifecycle works with. */
export interface BackendLifecycleOptions {
  /** The backends, names unique. */
  readonly backends: readonly CapableBackend[];
  /** Time source. */
  readonly clock: Clock;
  /** Minimum time between attempts to re-initialise an unhealthy backend, ms. */
  readonly recoveryIntervalMs: number;
  /** Where readiness, unavailability and recovery are noticed. */
  readonly telemetry: Telemetry;
  /** Called whenever a backend's state changes (the engine then forgets its cached plans). */
  readonly onChange: () => void;
  /** forceCpu: GPU backends are never initialised (no driver loaded, no adapter requested); they stay unavailable. */
  readonly forceCpu: boolean;
}

/** Why forceCpu leaves a GPU backend that was handed to the engine uninitialised. */
export const FORCE_CPU_UNSTARTED =
  'not started: forceCpu (createEngine({ forceCpu: true }) or TANDEM_FORCE_CPU=1) starts no GPU backend and loads no GPU driver';

/** Why a backend that is being re-initialised after a failure gets no work. */
export const RECOVERING_TEXT = 'recovering: re-initialising after a failure';

/** The registered backends' states, their initialisation and recovery. */
export class BackendLifecycle {
  /** Every backend's state, in registration order. */
  readonly states = new Map<string, BackendState>();
  private readonly clock: Clock;
  private readonly recoveryIntervalMs: number;
  private readonly telemetry: Telemetry;
  private readonly onChange: () => void;
  private readonly forceCpu: boolean;

  constructor(options: BackendLifecycleOptions) {
    this.forceCpu = options.forceCpu;
    this.clock = options.clock;
    this.recoveryIntervalMs = options.recoveryIntervalMs;
    this.telemetry = options.telemetry;
    this.onChange = options.onChange;
    for (const backend of options.backends) {
      this.states.set(backend.name, {
        backend,
        available: false,
        unavailableReason: 'not initialised',
        profile: DEFAULT_PROFILES[backend.kind],
        software: false,
        lastRecoveryAt: -Infinity,
        recovering: false,
        wasReady: false,
        unusableText: 'unavailable: not initialised',
      });
    }
  }

  /**
   * Initialises every backend concurrently; a failure marks that backend unavailable with its reason. Under forceCpu
   * a GPU backend's init() is never called: a driver that hangs or crashes there cannot take a CPU-only process down.
   */
  async init(): Promise<void> {
    await Promise.all(
      [...this.states.values()].map((s) =>
        this.forceCpu && s.backend.kind === 'gpu' ? this.leaveUnstarted(s) : this.initBackend(s),
      ),
    );
  }

  /** Registered backends with availability, device and health. */
  statuses(): BackendStatus[] {
    return [...this.states.values()].map((s) => {
      const device = s.available ? s.backend.describe() : undefined;
      return {
        name: s.backend.name,
        kind: s.backend.kind,
        available: s.available,
        unavailableReason: s.unavailableReason,
        device: device?.name,
        software: device?.software === true,
        health: s.available ? s.backend.health() : { state: 'unavailable', reason: s.unavailableReason ?? 'unknown' },
      };
    });
  }

  /** Re-initialises an unhealthy backend in the background, at most once per recoveryIntervalMs. */
  maybeRecover(s: BackendState): void {
    const now = this.clock();
    if (s.recovering || now - s.lastRecoveryAt < this.recoveryIntervalMs) return;
    s.recovering = true;
    s.lastRecoveryAt = now;
    void this.initBackend(s).then(() => {
      s.recovering = false;
      this.onChange();
      const health = s.backend.health();
      if (s.available && health.state !== 'unhealthy' && health.state !== 'unavailable')
        this.telemetry.notice('backend-recovered', s.backend.name, 'init succeeded after failure');
    });
  }

  /** Disposes every backend (a failure to dispose is ignored). */
  async dispose(): Promise<void> {
    await Promise.all([...this.states.values()].map((s) => s.backend.dispose().catch(() => undefined)));
  }

  private leaveUnstarted(s: BackendState): void {
    s.available = false;
    s.unavailableReason = FORCE_CPU_UNSTARTED;
    s.unusableText = `unavailable: ${FORCE_CPU_UNSTARTED}`;
    this.telemetry.notice('backend-unavailable', s.backend.name, FORCE_CPU_UNSTARTED);
  }

  private async initBackend(s: BackendState): Promise<void> {
    this.onChange();
    try {
      const result = await s.backend.init();
      if (result.ok) {
        s.available = true;
        s.wasReady = true;
        s.unavailableReason = undefined;
        const d = s.backend.describe();
        s.profile = d.performance ?? DEFAULT_PROFILES[s.backend.kind];
        s.software = d.software === true;
        this.telemetry.notice('backend-ready', s.backend.name, d.name);
      } else {
        s.available = false;
        s.unavailableReason = result.reason;
        s.unusableText = `unavailable: ${result.reason}`;
        this.telemetry.notice('backend-unavailable', s.backend.name, result.reason);
      }
    } catch (error) {
      s.available = false;
      s.unavailableReason = `init threw: ${errorMessage(error)}`;
      s.unusableText = `unavailable: ${s.unavailableReason}`;
      this.telemetry.notice('backend-unavailable', s.backend.name, s.unavailableReason);
    }
  }
}
