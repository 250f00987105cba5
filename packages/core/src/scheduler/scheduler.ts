// Chooses a backend per op. Rules, in order:
//  1. Backends that can't take the op (unsupported, unavailable, unhealthy) are skipped with their reason.
//  2. forceCpu drops GPUs; `{ only }` keeps one backend and never falls back elsewhere.
//  3. Open circuits and backends short of memory are skipped (open circuits stay as last-resort fallbacks).
//  4. The strategy picks among the rest: preferences by kind, or `auto`: the lowest estimated time
//     (learned compute + transfers of non-resident inputs), with gpuMinBatchSize (per op) as a prior-only rule (a GPU
//     whose compute is estimated close to the CPU's measured time is measured once the CPU's is, then competes on its
//     own), the gpuMinSpeedup policy (a GPU must beat the best CPU by that factor), hysteresis per size bucket, and
//     bounded exploration of close, stale or unmeasured backends.
//  5. Everything else eligible becomes the fallback list, cheapest first; fallback-only backends (the
//     reference) come last and are chosen only when nothing else can take the op.
import type { OpWork } from '../op-info.ts';
import type { CostModel } from './cost-model.ts';
import { checkSchedulerConfig, MinBatchSizes } from './policy.ts';
import type { Tracker } from './tracker.ts';
import {
  DEFAULT_SCHEDULER_CONFIG,
  type BackendSelection,
  type Candidate,
  type SchedulePlan,
  type SchedulerConfig,
  type SelectionReason,
  type SkippedBackend,
  type Strategy,
} from './selection.ts';

/** What the scheduler needs to know about one op call. */
export interface ScheduleRequest {
  /** Op id, for the circuit breaker. */
  readonly op: string;
  /** Op id and dtype, e.g. 'matmul|f32': the cost model's key. */
  readonly opKey: string;
  /** Work of the call. */
  readonly work: OpWork;
  /** Every registered backend, as seen for this call. */
  readonly candidates: readonly Candidate[];
}

/** Memory of the backends left out only for lack of it: the fewest bytes one needs, the most one has free. */
export interface MemoryShortfall {
  /** Fewest bytes the op needs on any of them. */
  readonly requiredBytes: number;
  /** Most bytes any of them has free. */
  readonly availableBytes: number;
}

/** Result of planning: a plan, or nothing usable with every backend's reason (and the memory shortfall, if any). */
export type PlanResult =
  | { readonly ok: true; readonly plan: SchedulePlan; readonly cacheable: boolean }
  | {
      readonly ok: false;
      readonly skipped: readonly SkippedBackend[];
      readonly shortfall: MemoryShortfall | undefined;
    };

/** Reasons whose plan stays right while nothing else changes (see DecisionCache). */
const STABLE_REASONS: ReadonlySet<SelectionReason['kind']> = new Set([
  'cost-model',
  'below-min-speedup',
  'below-min-batch',
  'user-preference',
  'force-cpu',
  'gpu-available',
  'gpu-unavailable',
  'only-capable',
]);

/** Memory headroom a reusable plan needs on every eligible backend: required x this <= available. */
const CACHE_MEMORY_HEADROOM = 4;

interface BucketState {
  current: string;
  streak: number;
}

interface Costed {
  readonly c: Candidate;
  readonly ms: number;
  readonly measured: boolean;
}

/** The hybrid scheduler: stateless about backends, stateful about what it learned. */
export class Scheduler {
  readonly config: SchedulerConfig;
  private readonly costModel: CostModel;
  private readonly tracker: Tracker;
  /** opKey -> size bucket -> the backend that bucket is on (for hysteresis). */
  private readonly buckets = new Map<string, Map<number, BucketState>>();
  /** gpuMinBatchSize per cost-model key. */
  private readonly minBatch: MinBatchSizes;

  /** Throws InvalidArgumentError (`createEngine.scheduler.<key>`) for an unknown setting or a value out of range. */
  constructor(costModel: CostModel, tracker: Tracker, config: Partial<SchedulerConfig> = {}) {
    checkSchedulerConfig('createEngine.scheduler', config);
    this.costModel = costModel;
    this.tracker = tracker;
    this.config = { ...DEFAULT_SCHEDULER_CONFIG, ...config };
    this.minBatch = new MinBatchSizes(this.config.gpuMinBatchSize, this.config.gpuMinBatchSizeByOp);
  }

  /** Plans one call. `commit: false` (explain) changes no state: no decision is counted and no probe is taken. */
  plan(req: ScheduleRequest, strategy: Strategy, commit: boolean): PlanResult {
    // One pass, few allocations: a fresh decision runs on every call the decision cache can't answer.
    const skipped: SkippedBackend[] = [];
    const eligible: Candidate[] = [];
    const circuitOpen: Candidate[] = [];
    let memoryReason: SelectionReason | undefined;
    let circuitReason: SelectionReason | undefined;
    let primaryCount = 0;
    let shortRequired = Infinity;
    let shortAvailable = -1;
    for (const c of req.candidates) {
      if (c.unusable !== undefined) skipped.push({ backend: c.name, reason: c.unusable });
      else if (this.config.forceCpu && c.kind === 'gpu') skipped.push({ backend: c.name, reason: 'forceCpu' });
      else if (typeof strategy === 'object' && c.name !== strategy.only)
        skipped.push({ backend: c.name, reason: `strategy only: ${strategy.only}` });
      else if (c.availableBytes !== undefined && c.requiredBytes > c.availableBytes) {
        skipped.push({ backend: c.name, reason: `needs ${c.requiredBytes} bytes, ${c.availableBytes} available` });
        memoryReason ??= {
          kind: 'memory-constraint',
          backend: c.name,
          requiredBytes: c.requiredBytes,
          availableBytes: c.availableBytes,
        };
        shortRequired = Math.min(shortRequired, c.requiredBytes);
        shortAvailable = Math.max(shortAvailable, c.availableBytes);
      } else if (!this.tracker.wouldAdmit(req.op, c.name)) {
        const successRate = this.tracker.successRate(req.op, c.name);
        skipped.push({ backend: c.name, reason: `circuit open (success rate ${successRate.toFixed(2)})` });
        circuitReason ??= { kind: 'circuit-open', backend: c.name, successRate };
        circuitOpen.push(c);
      } else {
        eligible.push(c);
        if (!c.fallbackOnly) primaryCount++;
      }
    }
    if (eligible.length === 0 && circuitOpen.length === 0) {
      return {
        ok: false,
        skipped,
        shortfall: shortAvailable < 0 ? undefined : { requiredBytes: shortRequired, availableBytes: shortAvailable },
      };
    }

    // Fallback-only backends (the reference) compete only when nothing else is eligible.
    const costed: Costed[] = [];
    const lastResorts: Candidate[] = [];
    for (const c of eligible) {
      if (primaryCount > 0 && c.fallbackOnly) lastResorts.push(c);
      else costed.push(this.cost(req, c));
    }
    if (costed.length > 1) costed.sort(byCostThenPriority);
    const costsMs: Record<string, number> = {};
    const transfersMs: Record<string, number> = {};
    for (const x of costed) {
      costsMs[x.c.name] = x.ms;
      transfersMs[x.c.name] = x.c.transferMs;
    }
    if (commit) this.costModel.tick(req.opKey);

    let chosen: Costed | undefined;
    let reason: SelectionReason;
    let probe = false;
    let estimatesMeasured = true;
    let warmUp: string | undefined;
    if (costed.length === 0) {
      // Every eligible backend has an open circuit: try them anyway rather than fail the call.
      const lastResort = circuitOpen.map((c) => this.cost(req, c)).sort(byCostThenPriority);
      chosen = lastResort[0];
      reason = circuitReason ?? { kind: 'cpu-fallback', why: 'every backend has an open circuit' };
    } else if (typeof strategy === 'object') {
      chosen = costed[0];
      reason = { kind: 'user-preference', strategy: `only ${strategy.only}` };
    } else if (this.config.forceCpu) {
      chosen = costed[0];
      reason = { kind: 'force-cpu' };
    } else if (strategy === 'gpu-preferred') {
      chosen = costed.find((x) => x.c.kind === 'gpu');
      if (chosen !== undefined) reason = { kind: 'gpu-available' };
      else {
        chosen = costed[0];
        reason = { kind: 'gpu-unavailable', why: gpuAbsence(skipped) };
      }
    } else if (strategy === 'cpu-preferred') {
      chosen = costed.find((x) => x.c.kind === 'cpu');
      if (chosen !== undefined) reason = { kind: 'user-preference', strategy: 'cpu-preferred' };
      else {
        chosen = costed[0];
        reason = { kind: 'only-capable', skipped };
      }
    } else {
      const auto = this.chooseAuto(req, costed, commit);
      chosen = auto.chosen;
      reason = auto.reason;
      probe = auto.probe;
      estimatesMeasured = auto.measured;
      if (reason.kind === 'cost-model' && chosen?.c.kind === 'cpu') reason = circuitReason ?? memoryReason ?? reason;
      const standIn = chosen === undefined ? undefined : this.servesWhileWarming(req, chosen, costed);
      if (standIn !== undefined && chosen !== undefined) {
        warmUp = chosen.c.name;
        reason = { kind: 'warming', backend: warmUp };
        chosen = standIn;
        probe = false;
      }
    }
    if (chosen === undefined) return { ok: false, skipped, shortfall: undefined };
    if (commit && !probe && this.tracker.state(req.op, chosen.c.name) === 'half-open') probe = true;
    const pick = chosen;
    const fallbacks: string[] = [];
    for (const x of costed) if (x !== pick) fallbacks.push(x.c.name);
    for (const c of lastResorts) fallbacks.push(c.name);
    for (const c of circuitOpen) if (c !== pick.c) fallbacks.push(c.name);
    const selection: BackendSelection = { backend: pick.c.name, reason, estimatedMs: pick.ms };
    const cacheable =
      !probe &&
      circuitOpen.length === 0 &&
      memoryReason === undefined &&
      STABLE_REASONS.has(reason.kind) &&
      (estimatesMeasured || (reason.kind !== 'cost-model' && reason.kind !== 'below-min-speedup')) &&
      eligible.every(
        (c) => c.availableBytes === undefined || c.requiredBytes * CACHE_MEMORY_HEADROOM <= c.availableBytes,
      );
    const plan: SchedulePlan = { selection, fallbacks, skipped, costsMs, transfersMs, probe, warmUp };
    return { ok: true, plan, cacheable };
  }

  /**
   * The backend that serves a call `auto` gave to a GPU that has never run this op and compiles on a first run
   * (WebGPU's pipelines: seconds on a software GPU), so that run is done in the background (SchedulePlan.warmUp) and
   * the call does not wait for it: the cheapest other backend that needs no such first run (a GPU whose kernels are
   * built ahead, such as ROCm, before a CPU when it is cheaper). Undefined when the chosen GPU has run the op, builds
   * its kernels ahead (its first run costs about what the next ones do), or nothing else can take the call.
   */
  private servesWhileWarming(req: ScheduleRequest, chosen: Costed, costed: readonly Costed[]): Costed | undefined {
    if (!this.config.warmInBackground || !this.compilesFirst(req, chosen)) return undefined;
    return costed.find((x) => x !== chosen && !this.compilesFirst(req, x));
  }

  /** Whether `x` is a GPU that compiles on its first run of this op and has not run it yet. */
  private compilesFirst(req: ScheduleRequest, x: Costed): boolean {
    return x.c.kind === 'gpu' && x.c.compilesOnFirstRun === true && !this.costModel.warmedUp(req.opKey, x.c.name);
  }

  private cost(req: ScheduleRequest, c: Candidate): Costed {
    const e = this.costModel.estimate(req.opKey, c.name, req.work.flops, c.priorMs);
    return { c, ms: e.ms + c.transferMs, measured: e.measured };
  }

  private chooseAuto(
    req: ScheduleRequest,
    costed: readonly Costed[],
    commit: boolean,
  ): { chosen: Costed | undefined; reason: SelectionReason; probe: boolean; measured: boolean } {
    // gpuMinBatchSize is a prior: it applies to a GPU only until that GPU has been measured on this op.
    const hasCpu = costed.some((x) => x.c.kind === 'cpu');
    const minBatch = this.minBatch.of(req.op, req.opKey);
    const smallBatch = hasCpu && req.work.batch < minBatch;
    const batchPool = smallBatch
      ? costed.filter((x) => x.c.kind !== 'gpu' || this.costModel.sampleCount(req.opKey, x.c.name) > 0)
      : costed;
    const measured = batchPool.every((x) => x.measured);
    const unmeasuredGpu =
      batchPool.length < costed.length && batchPool[0] !== undefined
        ? this.gpuToMeasure(req, costed, batchPool[0])
        : undefined;
    if (unmeasuredGpu !== undefined)
      return {
        chosen: unmeasuredGpu,
        reason: { kind: 'exploring', backend: unmeasuredGpu.c.name, why: 'unmeasured' },
        probe: false,
        measured,
      };
    // The gpuMinSpeedup policy: a GPU not that many times faster than the best CPU backend leaves the pool.
    const slowGpus = hasCpu && this.config.gpuMinSpeedup > 1 ? this.belowMinSpeedup(batchPool) : undefined;
    const pool = slowGpus === undefined ? batchPool : batchPool.filter((x) => !slowGpus.includes(x));
    const best = pool[0];
    if (best === undefined)
      return { chosen: undefined, reason: { kind: 'cpu-fallback', why: 'no backend' }, probe: false, measured };
    // The GPU the policy kept out when it would have won: the decision's reason.
    const keptOut = slowGpus?.[0] !== undefined && slowGpus[0].ms < best.ms ? slowGpus[0] : undefined;
    const policyReason: SelectionReason | undefined =
      keptOut === undefined
        ? undefined
        : {
            kind: 'below-min-speedup',
            gpu: keptOut.c.name,
            speedup: best.ms / keptOut.ms,
            minSpeedup: this.config.gpuMinSpeedup,
          };
    if (pool.length === 1) {
      const reason: SelectionReason =
        policyReason ??
        (batchPool.length < costed.length
          ? { kind: 'below-min-batch', batch: req.work.batch, minBatch }
          : { kind: 'cost-model', measured });
      return { chosen: best, reason, probe: false, measured };
    }

    // Hysteresis per size bucket: switch at once for a big win, or after a streak of smaller ones.
    const bucketId = Math.floor(Math.log2(req.work.flops + 1) * 2);
    let opBuckets = this.buckets.get(req.opKey);
    if (opBuckets === undefined) {
      opBuckets = new Map();
      this.buckets.set(req.opKey, opBuckets);
    }
    let chosen = best;
    let reason: SelectionReason = policyReason ?? { kind: 'cost-model', measured };
    const state = opBuckets.get(bucketId);
    const current = state === undefined ? undefined : pool.find((x) => x.c.name === state.current);
    if (state !== undefined && current !== undefined && current !== best) {
      const bigWin = current.ms >= best.ms * this.config.gpuSpeedupThreshold;
      const streak = state.streak + 1;
      if (!bigWin && streak < this.config.switchAfter) {
        chosen = current;
        reason = { kind: 'hysteresis', kept: current.c.name };
        if (commit) state.streak = streak;
      }
    }
    if (commit) {
      if (state === undefined || state.current !== chosen.c.name)
        opBuckets.set(bucketId, { current: chosen.c.name, streak: 0 });
      else if (chosen === best) state.streak = 0;
    }

    // Bounded exploration: re-measure a close alternative that is unmeasured, stale, or whose circuit wants a probe.
    // GPUs under the speedup policy are explored too (once per exploreEvery decisions), so a GPU that got faster is found.
    for (const x of slowGpus === undefined ? pool : batchPool) {
      if (x === chosen) continue;
      const far = x.ms > chosen.ms * this.config.exploreMaxRatio;
      if (!far && this.tracker.state(req.op, x.c.name) === 'half-open') {
        return { chosen: x, reason: { kind: 'exploring', backend: x.c.name, why: 'probe' }, probe: true, measured };
      }
      if (x.c.software === true && !this.config.exploreSoftware) continue;
      // An estimate that only a profile gave is measured here once, however far off it is: a profile is checked.
      if (this.costModel.profileCheckDue(req.opKey, x.c.name, this.config.exploreEvery))
        return { chosen: x, reason: { kind: 'exploring', backend: x.c.name, why: 'profile' }, probe: false, measured };
      if (far) continue;
      const since = this.costModel.decisionsSinceMeasured(req.opKey, x.c.name);
      if (since === Infinity)
        return {
          chosen: x,
          reason: { kind: 'exploring', backend: x.c.name, why: 'unmeasured' },
          probe: false,
          measured,
        };
      if (since >= this.config.exploreEvery)
        return { chosen: x, reason: { kind: 'exploring', backend: x.c.name, why: 'stale' }, probe: false, measured };
    }
    return { chosen, reason, probe: false, measured };
  }

  /** The GPUs of `pool` (sorted by cost) whose estimate is not gpuMinSpeedup times below the best CPU backend's, cheapest first. */
  private belowMinSpeedup(pool: readonly Costed[]): Costed[] | undefined {
    const cpu = pool.find((x) => x.c.kind === 'cpu');
    if (cpu === undefined) return undefined;
    const slow = pool.filter((x) => x.c.kind === 'gpu' && cpu.ms < x.ms * this.config.gpuMinSpeedup);
    return slow.length === 0 ? undefined : slow;
  }

  /**
   * A GPU that gpuMinBatchSize keeps out of a small-batch decision, to be measured now: once the CPU's own time on
   * this op is measured, a GPU whose compute estimate is within exploreMaxRatio of it runs the op (twice: the first
   * run is a warm-up the cost model does not learn from). Its input transfers are left out of that test: a weight's
   * upload is paid once and then serves every later call. Without this the prior was final: a decode loop (batch 1)
   * never measured the GPU, so a mat-vec stayed on wasm at over twice rocm's time per call (docs/decisions.md, issue 29).
   */
  private gpuToMeasure(req: ScheduleRequest, costed: readonly Costed[], cpuBest: Costed): Costed | undefined {
    if (!cpuBest.measured || cpuBest.c.kind !== 'cpu') return undefined;
    return costed.find(
      (x) =>
        x.c.kind === 'gpu' &&
        (x.c.software !== true || this.config.exploreSoftware) &&
        this.costModel.sampleCount(req.opKey, x.c.name) === 0 &&
        x.ms - x.c.transferMs <= cpuBest.ms * this.config.exploreMaxRatio &&
        this.costModel.decisionsSinceMeasured(req.opKey, x.c.name) >= 1,
    );
  }
}

function byCostThenPriority(a: Costed, b: Costed): number {
  return a.ms - b.ms || a.c.priority - b.c.priority;
}

function gpuAbsence(skipped: readonly SkippedBackend[]): string {
  return skipped.length === 0
    ? 'no GPU backend registered'
    : skipped.map((s) => `${s.backend}: ${s.reason}`).join('; ');
}
