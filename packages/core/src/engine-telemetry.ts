// The engine's side of its telemetry: which kind each backend is, whether a GPU can take work, and the cost model's
// view of how much faster the GPU is on an op; and the `telemetry` option read as a level.
import { InvalidArgumentError } from './errors.ts';
import type { BackendLifecycle } from './engine-backends.ts';
import type { CostModel } from './scheduler/cost-model.ts';
import type { TelemetryLevel, TelemetryView } from './telemetry/telemetry.ts';

/** The `telemetry` option of createEngine: true or 'events' (default), false or 'counters' (no event ring). */
export type TelemetrySetting = boolean | TelemetryLevel;

/** The level a `telemetry` option asks for; anything else is an InvalidArgumentError. */
export function telemetryLevelOf(setting: unknown): TelemetryLevel {
  if (setting === undefined || setting === true || setting === 'events') return 'events';
  if (setting === false || setting === 'counters') return 'counters';
  throw new InvalidArgumentError(
    'createEngine.telemetry',
    setting,
    "must be true or 'events' (every attempt kept in a ring), or false or 'counters' (counters only)",
  );
}

/** The telemetry's view of an engine; `parts` is read when asked (the engine builds its telemetry first). */
export function engineTelemetryView(
  parts: () => { readonly lifecycle: BackendLifecycle; readonly costModel: CostModel },
): TelemetryView {
  return {
    kindOf: (backend) => parts().lifecycle.states.get(backend)?.backend.kind,
    gpuAvailable: () => {
      for (const s of parts().lifecycle.states.values()) {
        if (s.backend.kind !== 'gpu' || !s.available || s.recovering) continue;
        const health = s.backend.health().state;
        if (health === 'healthy' || health === 'degraded') return true;
      }
      return false;
    },
    gpuSpeedup: (op, flops) => {
      const { lifecycle, costModel } = parts();
      // An op id stands for its busiest cost-model key (most decisions), e.g. 'matmul|f32'.
      const key = op.includes('|')
        ? op
        : costModel.keysOf(op).sort((a, b) => costModel.decisionCount(b) - costModel.decisionCount(a))[0];
      if (key === undefined) return undefined;
      const size = flops ?? costModel.latestFlops(key);
      if (size === undefined) return undefined;
      const best = { cpu: Infinity, gpu: Infinity };
      for (const backend of costModel.backendsMeasured(key)) {
        const state = lifecycle.states.get(backend);
        const ms = state === undefined ? undefined : costModel.learnedMs(key, backend, size, state.profile.launchMs);
        if (state !== undefined && ms !== undefined) best[state.backend.kind] = Math.min(best[state.backend.kind], ms);
      }
      return Number.isFinite(best.cpu) && Number.isFinite(best.gpu) ? best.cpu / best.gpu : undefined;
    },
  };
}
