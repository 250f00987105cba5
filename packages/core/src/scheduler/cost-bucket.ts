// One size bucket of the cost model (half an octave of work on one (op, dtype, backend)): a window of samples of
// measured / prior time and their recency-weighted median (cost-model.ts explains the model).

/** One measurement as the cost model learns it. */
export interface Sample {
  /** log2 of the op's work (flops) when measured. */
  readonly logWork: number;
  /** log2(measured / prior). */
  readonly logRatio: number;
  /** log2(prior), ms: with logRatio, the measured time (what measuredMs interpolates). */
  readonly logPrior: number;
  /** The op's decision counter at measurement. */
  readonly at: number;
  /** Wall time of the measurement, ms, when the caller gave one. */
  readonly atMs: number | undefined;
  /** Learned from a cold call (only when cold calls were all its series saw for a while). */
  readonly cold: boolean;
}

/** Consecutive surprises of one bucket in one direction. */
export interface SurpriseRun {
  /** 1: slower than estimated, -1: faster, 0: none. */
  readonly direction: -1 | 0 | 1;
  /** Surprises in the run (the samples below keep only the newest `window` of them). */
  readonly count: number;
  /** Wall time of the first, ms, when the caller gave one. */
  readonly startMs: number | undefined;
  /** The newest samples of the run, which the size is re-learned from when the run is long enough. */
  readonly samples: Sample[];
}

export const NO_SURPRISES: SurpriseRun = { direction: 0, count: 0, startMs: undefined, samples: [] };

/** A sample with its recency weight, 2^((at - base) / halfLife) for the bucket's base decision. */
interface Weighted {
  readonly sample: Sample;
  weight: number;
}

/** Exponents of recency weights above this are rebased (2^500 is far from overflowing a double). */
const MAX_WEIGHT_EXPONENT = 500;

/** A size bucket: its samples, their recency-weighted median log-ratio and its run of surprises. */
export class Bucket {
  readonly samples: Sample[] = [];
  /** The current run of surprises at this size (consecutive samples far off the estimate in one direction). */
  surprises: SurpriseRun = NO_SURPRISES;
  meanLogWork = 0;
  /** Recency-weighted mean of the samples' log2(prior): with typicalLogRatio, the bucket's typical time. */
  meanLogPrior = 0;
  // Recency-weighted sums as of the newest sample's decision `lastAt` (weight 1 = a sample taken at lastAt).
  private wSum = 0;
  private wWork = 0;
  private wPrior = 0;
  private lastAt = 0;
  /** The samples sorted by logRatio, each with its recency weight relative to `base`. */
  private readonly byRatio: Weighted[] = [];
  /** Sum of the weights in byRatio. */
  private totalWeight = 0;
  private base = 0;
  private typical: number | undefined;

  /** Cold samples among `samples`. */
  private coldSamples = 0;

  /**
   * The recency-weighted median of the samples' log-ratios: the bucket's typical time. A mean let the slow first
   * calls of each switch between ops (caches holding another op's data) pull the estimate up, several-fold on the
   * dispatch suite's mixed workload (docs/decisions.md, issue 29), and the oracle it is judged by takes medians.
   */
  get typicalLogRatio(): number {
    if (this.typical !== undefined) return this.typical;
    const half = this.totalWeight / 2;
    let below = 0;
    let typical = 0;
    for (const x of this.byRatio) {
      below += x.weight;
      typical = x.sample.logRatio;
      if (below >= half) break;
    }
    this.typical = typical;
    return typical;
  }

  /**
   * Adds a sample: decay the work sums to the new time, add it, drop the one leaving the window; the median is
   * recomputed when next asked for. `restart` drops the older ones first. A warm sample drops the cold ones (learned
   * while cold calls were all there was: the dispatch suite's training rounds priced rocm 3x too slow on `rope` for
   * three more rounds of warm calls).
   */
  add(sample: Sample, window: number, halfLife: number, restart: boolean): void {
    if (!restart && !sample.cold && this.coldSamples > 0) {
      const warm = this.samples.filter((x) => !x.cold);
      this.samples.length = 0;
      this.coldSamples = 0;
      warm.forEach((x, i) => {
        this.add(x, window, halfLife, i === 0);
      });
    }
    if (restart || this.samples.length === 0) {
      this.coldSamples = 0;
      this.samples.length = 0;
      this.byRatio.length = 0;
      this.totalWeight = 0;
      this.wSum = this.wWork = this.wPrior = 0;
      this.lastAt = sample.at;
      this.base = sample.at;
    }
    const decay = 2 ** ((this.lastAt - sample.at) / halfLife);
    this.wSum = this.wSum * decay + 1;
    this.wWork = this.wWork * decay + sample.logWork;
    this.wPrior = this.wPrior * decay + sample.logPrior;
    this.lastAt = sample.at;
    this.samples.push(sample);
    if (sample.cold) this.coldSamples++;
    if ((sample.at - this.base) / halfLife > MAX_WEIGHT_EXPONENT) {
      const shift = 2 ** ((this.base - sample.at) / halfLife);
      for (const x of this.byRatio) x.weight *= shift;
      this.totalWeight *= shift;
      this.base = sample.at;
    }
    const entry: Weighted = { sample, weight: 2 ** ((sample.at - this.base) / halfLife) };
    this.byRatio.splice(this.firstAbove(sample.logRatio), 0, entry);
    this.totalWeight += entry.weight;
    if (this.samples.length > window) {
      const old = this.samples.shift();
      if (old?.cold === true) this.coldSamples--;
      if (old !== undefined) {
        const w = 2 ** ((old.at - sample.at) / halfLife);
        this.wSum -= w;
        this.wWork -= w * old.logWork;
        this.wPrior -= w * old.logPrior;
        // Its entry sits among the entries of equal logRatio just below firstAbove(old.logRatio).
        let index = this.firstAbove(old.logRatio) - 1;
        while (index >= 0 && this.byRatio[index]?.sample !== old) index--;
        const [removed] = index >= 0 ? this.byRatio.splice(index, 1) : [];
        if (removed !== undefined) this.totalWeight -= removed.weight;
      }
    }
    this.meanLogWork = this.wWork / this.wSum;
    this.meanLogPrior = this.wPrior / this.wSum;
    this.typical = undefined;
  }

  /** Index of the first entry of byRatio whose logRatio is above `logRatio` (binary search). */
  private firstAbove(logRatio: number): number {
    let lo = 0;
    let hi = this.byRatio.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.byRatio[mid]?.sample.logRatio ?? Infinity) <= logRatio) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
