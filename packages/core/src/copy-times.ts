// How long copies between the host and one backend take, learned per size class from the copies themselves.
//
// A single line (time = latency + bytes / bandwidth) fitted to a mix of sizes priced rocm's copies several times too
// high (docs/decisions.md, issue 29): copies of 64 KiB and more land in pinned blocks and pay a fixed cost of their own that the small copies, which
// set the latency, do not, so every 256 KiB copy looked like a slow bus, and the bandwidth swung with the mix of
// sizes among the recent copies. Here each size class (half an octave of bytes) keeps the median of its own recent
// copies; a size between two measured classes is interpolated, one outside them extrapolated.
import { median } from './stats.ts';

/** Recent copies each size class's time is the median of: one slow copy (a GC pause) does not move it. */
const COPIES_KEPT = 15;

/** Cold copies (after the host was idle) are left out unless this many in a row are all a class sees. */
const COLD_COPIES_TO_LEARN = 8;

/** Size classes per doubling of bytes. */
const CLASSES_PER_OCTAVE = 2;

/** The last COPIES_KEPT values and their median. */
class RecentMedian {
  private readonly values: number[] = [];
  /** Median of the values kept (undefined before the first). */
  median: number | undefined;

  add(value: number): void {
    this.values.push(value);
    if (this.values.length > COPIES_KEPT) this.values.shift();
    this.median = median(this.values);
  }
}

/** One size class: its recent warm copies (bytes and time), and the cold ones waiting to be believed. */
class SizeClass {
  /** Copies seen, cold or warm (the first pays for allocation and is skipped). */
  seen = 0;
  bytes = new RecentMedian();
  ms = new RecentMedian();
  private coldRun: Array<{ bytes: number; ms: number }> = [];
  /** Whether cold copies were learned (a warm copy then starts the class afresh, as in the cost model). */
  private learnedCold = false;

  observe(bytes: number, ms: number, cold: boolean): void {
    if (++this.seen === 1) return;
    if (!cold) {
      this.coldRun = [];
      if (this.learnedCold) {
        this.bytes = new RecentMedian();
        this.ms = new RecentMedian();
        this.learnedCold = false;
      }
      this.add(bytes, ms);
      return;
    }
    this.coldRun.push({ bytes, ms });
    if (this.coldRun.length < COLD_COPIES_TO_LEARN) return;
    for (const copy of this.coldRun) this.add(copy.bytes, copy.ms); // a workload that is always cold: learn it as it is
    this.coldRun = [];
    this.learnedCold = true;
  }

  /** A point measured before (a profile's): learned as a warm copy; the first copy here is still skipped. */
  seed(bytes: number, ms: number): void {
    this.add(bytes, ms);
  }

  private add(bytes: number, ms: number): void {
    this.bytes.add(bytes);
    this.ms.add(ms);
  }
}

/** A size class's learned point: typical bytes and the median time of copies of about that size. */
export interface CopyPoint {
  /** Median bytes of the class's recent copies. */
  readonly bytes: number;
  /** Median time of those copies, ms. */
  readonly ms: number;
}

/** Copy times of one backend in one direction (host to device, or device to host). */
export class CopyTimes {
  private readonly classes = new Map<number, SizeClass>();
  /** points(), kept until the next copy (estimateMs runs for every backend on every call the scheduler plans). */
  private sortedPoints: CopyPoint[] | undefined;

  /** `priorBytesPerMs`: the backend's stated transfer rate, used until copies near a size are measured. */
  constructor(private readonly priorBytesPerMs: () => number) {}

  /** A copy of `bytes` took `ms`; `cold` when it came right after the host was idle. */
  observe(bytes: number, ms: number, cold: boolean): void {
    this.classFor(bytes).observe(bytes, ms, cold);
    this.sortedPoints = undefined;
  }

  /** Learns a point saved by an earlier run (a profile) at once: it is not this run's first, allocating copy. */
  seed(point: CopyPoint): void {
    this.classFor(point.bytes).seed(point.bytes, point.ms);
    this.sortedPoints = undefined;
  }

  private classFor(bytes: number): SizeClass {
    const key = classOf(bytes);
    let sizeClass = this.classes.get(key);
    if (sizeClass === undefined) {
      sizeClass = new SizeClass();
      this.classes.set(key, sizeClass);
    }
    return sizeClass;
  }

  /** The learned points, smallest first. */
  points(): readonly CopyPoint[] {
    if (this.sortedPoints !== undefined) return this.sortedPoints;
    const points: CopyPoint[] = [];
    for (const c of this.classes.values()) {
      if (c.bytes.median !== undefined && c.ms.median !== undefined)
        points.push({ bytes: c.bytes.median, ms: c.ms.median });
    }
    this.sortedPoints = points.sort((a, b) => a.bytes - b.bytes);
    return this.sortedPoints;
  }

  /**
   * Estimated ms to copy `bytes`: between two learned points, the line through them; below the smallest, that
   * point's time (small copies cost their fixed part); above the largest, its time plus the extra bytes at the
   * faster of its own throughput and the prior rate; with nothing learned, the prior rate alone.
   */
  estimateMs(bytes: number): number {
    const points = this.points();
    const first = points[0];
    const last = points.at(-1);
    if (first === undefined || last === undefined) return bytes / this.priorBytesPerMs();
    if (bytes <= first.bytes) return first.ms;
    if (bytes >= last.bytes)
      return last.ms + (bytes - last.bytes) / Math.max(last.bytes / Math.max(last.ms, 1e-6), this.priorBytesPerMs());
    const upper = points.findIndex((p) => p.bytes >= bytes);
    const [lo, hi] = [points[upper - 1] ?? first, points[upper] ?? last];
    const span = hi.bytes - lo.bytes;
    return span <= 0 ? hi.ms : lo.ms + ((hi.ms - lo.ms) * (bytes - lo.bytes)) / span;
  }
}

/** The size class of a copy of `bytes`: half-octaves of bytes. */
function classOf(bytes: number): number {
  return Math.floor(Math.log2(Math.max(1, bytes)) * CLASSES_PER_OCTAVE);
}
