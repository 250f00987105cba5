// The learned cost model: per (op, dtype, backend), size buckets of measured time relative to the roofline prior.
//
// Each bucket (half an octave of work) keeps a window of samples of `measured / prior`: the time per unit of
// predicted work. Its estimate is a recency-weighted median (weights halve every `halfLifeDecisions` decisions of
// that op), so a backend that has not been measured for a while is out-voted by new samples, and the slow calls of
// a mixed workload (the first call of an op after others ran, a GC pause) do not pull it up. Between measured
// buckets the correction is interpolated in log space; outside them the nearest bucket's correction applies.
// A run of samples of one size far off the estimate there (a regime change: the GPU got throttled, another process
// took the CPU) drops that size's bucket: it is re-learned from the new samples. Other sizes keep their buckets and
// are re-learned the same way when their own measurements disagree. (Dropping every other bucket too had priced
// them from the surviving one's correction, a small op's from a large one's: docs/decisions.md, issue 29.)

import { Bucket, NO_SURPRISES, type Sample } from './cost-bucket.ts';
import { COLD_CALLS_AFTER_IDLE } from './warmth.ts';

/** Tuning of the cost model. */
export interface CostModelConfig {
  /** Samples kept per bucket (the moving-average window). */
  readonly window: number;
  /** Decisions of an op after which an old sample weighs half as much as a new one. */
  readonly halfLifeDecisions: number;
  /** A sample more than this many times off its bucket's estimate (either way) is a surprise. */
  readonly surpriseFactor: number;
  /** Consecutive surprises of one size in the same direction that make that size be re-learned. */
  readonly surprisesForRegimeChange: number;
  /**
   * Wall time, ms, that run of surprises must span too (when the caller gives times): a stall of the host that
   * slows a few calls in a row is not a regime change.
   */
  readonly regimeMinSpanMs: number;
  /** First runs per (op, dtype, backend) not learned from: they time JIT, instantiation and allocation. */
  readonly warmupSamples: number;
  /**
   * Cold samples (calls just after their backend was idle: scheduler/warmth.ts) in a row per (op, dtype, backend) not
   * learned from; past this many the workload is taken to be always cold and they are learned from.
   */
  readonly coldSamplesSkipped: number;
}

export const DEFAULT_COST_MODEL_CONFIG: CostModelConfig = {
  window: 100,
  halfLifeDecisions: 1000,
  surpriseFactor: 2.5,
  // 5, not 3: bursts of 3 slow calls were common enough on a GPU to reset its series dozens of times in one dispatch
  // run (docs/decisions.md, issue 29).
  surprisesForRegimeChange: 5,
  // A run of surprises must span this long: shorter runs were stalls of the host, and re-learning a size from one
  // priced the GPU far too slow until it was measured again (docs/decisions.md, issue 29; run-jitter-probe.ts).
  regimeMinSpanMs: 100,
  warmupSamples: 1,
  coldSamplesSkipped: 8,
};

/** Everything measured for one (op, dtype, backend). */
class Series {
  readonly buckets = new Map<number, Bucket>();
  /**
   * The buckets sorted by meanLogWork, rebuilt when a bucket is added: a bucket's mean stays inside its half octave,
   * so the order of bucket ids is the order of their means (this runs on every op call; it was re-sorted on each).
   */
  sorted: Bucket[] = [];
  lastSampleAt = -Infinity;
  /** log2 of the work of the newest sample learned from. */
  lastLogWork = 0;
  samples = 0;
  warmups = 0;
  /** Cold samples since the last warm one. */
  coldInARow = 0;
  /** Its buckets came from a profile and nothing has been learned here yet (the scheduler checks it once). */
  fromProfile = false;
  /** The op's decision count when a profile seeded it. */
  seededAt = 0;
}

/** What a profile keeps of one (op, dtype, backend): per measured size, its work, prior and typical ratio. */
export interface CostSeriesSnapshot {
  /** The cost model's key ('matmul|f32'). */
  readonly opKey: string;
  /** Backend name. */
  readonly backend: string;
  /** One entry per size bucket, smallest first: [log2 work (flops + 1), log2 prior ms, log2 measured / prior]. */
  readonly sizes: ReadonlyArray<readonly [number, number, number]>;
}

/** An estimate and whether it rests on measurements. */
export interface CostEstimate {
  /** Predicted time, ms. */
  readonly ms: number;
  /** True when at least one measurement of this (op, dtype, backend) informs it. */
  readonly measured: boolean;
}

/** Learns per-backend latency from measurements; see the file comment. */
export class CostModel {
  /** opKey -> backend -> series. */
  private readonly series = new Map<string, Map<string, Series>>();
  private readonly decisions = new Map<string, number>();
  private learnedSamples = 0;
  readonly config: CostModelConfig;

  constructor(config: Partial<CostModelConfig> = {}) {
    this.config = { ...DEFAULT_COST_MODEL_CONFIG, ...config };
  }

  /** Counts one decision for (op, dtype); ages every sample of that op. Returns the new count. */
  tick(opKey: string): number {
    const n = (this.decisions.get(opKey) ?? 0) + 1;
    this.decisions.set(opKey, n);
    return n;
  }

  /** Decisions made so far for (op, dtype). */
  decisionCount(opKey: string): number {
    return this.decisions.get(opKey) ?? 0;
  }

  /** Decisions of (op, dtype) since `backend` was last measured on it (Infinity if never). */
  decisionsSinceMeasured(opKey: string, backend: string): number {
    const s = this.series.get(opKey)?.get(backend);
    return s === undefined ? Infinity : this.decisionCount(opKey) - s.lastSampleAt;
  }

  /** Predicted time of `backend` on an op of this much work, given the roofline prior for it. */
  estimate(opKey: string, backend: string, flops: number, priorMs: number): CostEstimate {
    const s = this.series.get(opKey)?.get(backend);
    if (s === undefined || s.sorted.length === 0) return { ms: priorMs, measured: false };
    const logRatio = interpolate(s.sorted, Math.log2(flops + 1));
    return { ms: priorMs * 2 ** logRatio, measured: true };
  }

  /**
   * Records a measured run. Returns undefined, or, when it made its size be re-learned (a regime change: see the file
   * comment), the estimate in ms that the run of measurements was off from.
   * `cold`: the call ran just after its backend was idle (scheduler/warmth.ts); skipped unless such calls are all there is.
   * `nowMs`: when it was measured (the regime-change span check needs it; without it only the count applies).
   */
  observe(
    opKey: string,
    backend: string,
    flops: number,
    priorMs: number,
    measuredMs: number,
    cold = false,
    nowMs?: number,
  ): number | undefined {
    let byBackend = this.series.get(opKey);
    if (byBackend === undefined) {
      byBackend = new Map();
      this.series.set(opKey, byBackend);
    }
    let s = byBackend.get(backend);
    if (s === undefined) {
      s = new Series();
      byBackend.set(backend, s);
    }
    const at = this.decisionCount(opKey);
    if (s.warmups < this.config.warmupSamples) {
      s.warmups++;
      s.lastSampleAt = at;
      return undefined;
    }
    s.coldInARow = cold ? s.coldInARow + 1 : 0;
    if (cold && s.coldInARow <= this.config.coldSamplesSkipped) {
      s.lastSampleAt = at;
      return undefined;
    }
    const logWork = Math.log2(flops + 1);
    const logPrior = Math.log2(Math.max(priorMs, 1e-9));
    const logRatio = Math.log2(Math.max(measuredMs, 1e-6) / Math.max(priorMs, 1e-9));
    const id = Math.floor(logWork * 2);
    const existing = s.buckets.get(id);
    const bucket = existing ?? new Bucket();
    const sample: Sample = { logWork, logRatio, logPrior, at, atMs: nowMs, cold };
    const change = this.regimeChange(s, bucket, sample);
    if (change === undefined) {
      bucket.add(sample, this.config.window, this.config.halfLifeDecisions, false);
    } else {
      change.relearnFrom.forEach((x, i) => {
        bucket.add(x, this.config.window, this.config.halfLifeDecisions, i === 0);
      });
    }
    s.lastSampleAt = at;
    s.lastLogWork = logWork;
    s.samples += 1;
    s.fromProfile = false;
    this.learnedSamples++;
    if (existing === undefined) {
      s.buckets.set(id, bucket);
      s.sorted = [...s.buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
    }
    return change === undefined ? undefined : priorMs * 2 ** change.estimateLogRatio;
  }

  /** Measurements learned from so far, over every series (a profile is saved when this has moved). */
  get learned(): number {
    return this.learnedSamples;
  }

  /** Whether `backend` has run `opKey` (its warm-up runs are done); a profile's estimates do not count. */
  warmedUp(opKey: string, backend: string): boolean {
    return (this.series.get(opKey)?.get(backend)?.warmups ?? 0) >= this.config.warmupSamples;
  }

  /** Measurements learned from for (op, dtype, backend), warm-up runs excluded. */
  sampleCount(opKey: string, backend: string): number {
    return this.series.get(opKey)?.get(backend)?.samples ?? 0;
  }

  /**
   * The time `backend` is estimated to take on a call of `opKey` with `flops` of work, ms, without the call itself:
   * as estimate() prices it, with the prior taken from the measured sizes' priors (interpolated in log space between
   * them; beyond them, the part above `launchMs` scaled with the work). Undefined when never measured.
   */
  learnedMs(opKey: string, backend: string, flops: number, launchMs: number): number | undefined {
    const sorted = this.series.get(opKey)?.get(backend)?.sorted;
    const first = sorted?.[0];
    const last = sorted?.[sorted.length - 1];
    if (sorted === undefined || first === undefined || last === undefined) return undefined;
    const x = Math.log2(flops + 1);
    let priorMs: number;
    if (x <= first.meanLogWork || x >= last.meanLogWork) {
      const edge = x <= first.meanLogWork ? first : last;
      const edgeWork = 2 ** edge.meanLogWork - 1;
      priorMs = launchMs + Math.max(0, 2 ** edge.meanLogPrior - launchMs) * (edgeWork > 0 ? flops / edgeWork : 1);
    } else {
      const upper = sorted.findIndex((b) => b.meanLogWork > x);
      const a = sorted[upper - 1] ?? first;
      const b = sorted[upper] ?? last;
      const t = (x - a.meanLogWork) / Math.max(b.meanLogWork - a.meanLogWork, 1e-12);
      priorMs = 2 ** (a.meanLogPrior + t * (b.meanLogPrior - a.meanLogPrior));
    }
    return priorMs * 2 ** interpolate(sorted, x);
  }

  /** The cost-model keys of op id `op` with measurements ('matmul' -> ['matmul|f32', 'matmul|f16']). */
  keysOf(op: string): string[] {
    return [...this.series.keys()].filter((key) => key.slice(0, key.indexOf('|')) === op);
  }

  /** Backends measured on `opKey`. */
  backendsMeasured(opKey: string): string[] {
    return [...(this.series.get(opKey)?.entries() ?? [])].filter(([, s]) => s.samples > 0).map(([name]) => name);
  }

  /** The work (FLOPs) of the newest call of `opKey` learned from on any backend; undefined when none. */
  latestFlops(opKey: string): number | undefined {
    let newest: Series | undefined;
    for (const s of this.series.get(opKey)?.values() ?? [])
      if (s.samples > 0 && (newest === undefined || s.lastSampleAt > newest.lastSampleAt)) newest = s;
    return newest === undefined ? undefined : 2 ** newest.lastLogWork - 1;
  }

  /** What was learned, size by size, of every (op, dtype, backend) measured or seeded: what a profile saves. */
  snapshot(): CostSeriesSnapshot[] {
    const out: CostSeriesSnapshot[] = [];
    for (const [opKey, byBackend] of this.series)
      for (const [backend, s] of byBackend)
        if (s.sorted.length > 0)
          out.push({
            opKey,
            backend,
            sizes: s.sorted.map((b) => [b.meanLogWork, b.meanLogPrior, b.typicalLogRatio] as const),
          });
    return out;
  }

  /**
   * Seeds series from a profile: each size becomes one sample, which measurements then out-vote (recency weights)
   * or re-learn (a run of surprises). A series already measured here keeps its own measurements. Seeding skips no
   * warm-up: the first run on each backend is still not learned from.
   */
  seed(snapshots: readonly CostSeriesSnapshot[]): number {
    let seeded = 0;
    for (const { opKey, backend, sizes } of snapshots) {
      if (sizes.length === 0 || this.series.get(opKey)?.has(backend) === true) continue;
      let byBackend = this.series.get(opKey);
      if (byBackend === undefined) {
        byBackend = new Map();
        this.series.set(opKey, byBackend);
      }
      const s = new Series();
      for (const [logWork, logPrior, logRatio] of sizes) {
        const bucket = new Bucket();
        bucket.add({ logWork, logPrior, logRatio, at: 0, atMs: undefined, cold: false }, 1, 1, true);
        s.buckets.set(Math.floor(logWork * 2), bucket);
      }
      s.sorted = [...s.buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
      s.samples = s.buckets.size;
      s.lastSampleAt = this.decisionCount(opKey);
      s.seededAt = s.lastSampleAt;
      s.fromProfile = true;
      byBackend.set(backend, s);
      seeded++;
    }
    return seeded;
  }

  /**
   * Whether (op, dtype) on `backend` is priced from a profile alone and is due to be measured here: `every`
   * decisions after it was seeded (or after its latest run), and, once that check has started, right after its
   * warm-up run (not learned from) and each cold run (skipped: scheduler/warmth.ts), up to COLD_CALLS_AFTER_IDLE of
   * them: the backend has usually sat idle before a check, and after that many calls in a row it is warm. Past them
   * the check waits `every` decisions again, so a sparse workload does not send call after call to a backend the
   * profile calls slow. A warm-up run before the check (in the background, or from the profile at start) does not
   * start it.
   */
  profileCheckDue(opKey: string, backend: string, every: number): boolean {
    const s = this.series.get(opKey)?.get(backend);
    if (s === undefined || !s.fromProfile) return false;
    const started = s.lastSampleAt >= s.seededAt + every;
    const checking = started && s.coldInARow <= COLD_CALLS_AFTER_IDLE;
    return this.decisionCount(opKey) - s.lastSampleAt >= (checking ? 1 : every);
  }

  /** Forgets everything measured for a backend (e.g. after it re-acquired a new device). */
  forget(backend: string): void {
    for (const byBackend of this.series.values()) byBackend.delete(backend);
  }

  /**
   * Counts a surprise at `bucket`'s size (a sample far off the estimate there). When the run of them in one direction
   * is long enough, in samples and in time, returns the samples to re-learn the size from (the older ones are
   * dropped) and the log-ratio estimate they were off from.
   */
  private regimeChange(
    s: Series,
    bucket: Bucket,
    sample: Sample,
  ): { relearnFrom: Sample[]; estimateLogRatio: number } | undefined {
    if (s.sorted.length === 0) return undefined;
    const estimateLogRatio = interpolate(s.sorted, sample.logWork);
    const off = sample.logRatio - estimateLogRatio;
    const limit = Math.log2(this.config.surpriseFactor);
    const direction = off > limit ? 1 : off < -limit ? -1 : 0;
    const run = bucket.surprises;
    if (direction === 0) {
      bucket.surprises = NO_SURPRISES;
      return undefined;
    }
    if (run.direction !== direction) {
      bucket.surprises = { direction, count: 1, startMs: sample.atMs, samples: [sample] };
    } else {
      run.samples.push(sample);
      if (run.samples.length > this.config.window) run.samples.shift();
      bucket.surprises = { ...run, count: run.count + 1 };
    }
    const { count, startMs, samples } = bucket.surprises;
    if (count < this.config.surprisesForRegimeChange) return undefined;
    if (startMs !== undefined && sample.atMs !== undefined && sample.atMs - startMs < this.config.regimeMinSpanMs)
      return undefined;
    bucket.surprises = NO_SURPRISES;
    return { relearnFrom: samples, estimateLogRatio };
  }
}

/** Log-ratio at `x` from buckets sorted by meanLogWork: linear between neighbours, flat outside. */
function interpolate(buckets: readonly Bucket[], x: number): number {
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  if (first === undefined || last === undefined) return 0;
  if (x <= first.meanLogWork) return first.typicalLogRatio;
  if (x >= last.meanLogWork) return last.typicalLogRatio;
  let lo = 0;
  let hi = buckets.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const b = buckets[mid];
    if (b !== undefined && b.meanLogWork <= x) lo = mid;
    else hi = mid;
  }
  const a = buckets[lo];
  const b = buckets[hi];
  if (a === undefined || b === undefined) return 0;
  const span = b.meanLogWork - a.meanLogWork;
  const t = span <= 0 ? 0 : (x - a.meanLogWork) / span;
  return a.typicalLogRatio + t * (b.typicalLogRatio - a.typicalLogRatio);
}
