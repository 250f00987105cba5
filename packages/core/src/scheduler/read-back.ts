// How often the results of an op are read back to the host (tensor.read()), per op and dtype.
//
// A GPU's measured run time leaves out the copy of its outputs back to the host, which a caller who reads every
// result pays on each call (on a discrete GPU that copy can cost more than the kernel). The engine charges each
// candidate backend rate x (the time to download the outputs from it), where rate is learned here from what
// happened to earlier outputs of the same op: read back (1), or disposed without a read (0). Outputs consumed by
// later ops and never read (a graph that keeps intermediates on the device) drive the rate to 0, so chains of GPU
// ops are not charged for copies that never happen.

/** Weight of the newest observation in the moving average. */
const ALPHA = 0.25;

/** Read-back rate per op key ('add|f32'): a moving average of 1 (read) and 0 (disposed unread). */
export class ReadBackRates {
  private readonly rates = new Map<string, number>();

  /** The share of outputs of `opKey` expected to be read back (0 until an output of it was read or dropped). */
  rate(opKey: string): number {
    return this.rates.get(opKey) ?? 0;
  }

  /** One output of `opKey` was read back to the host (`read: true`) or disposed without a read. */
  observe(opKey: string, read: boolean): void {
    const sample = read ? 1 : 0;
    const old = this.rates.get(opKey);
    this.rates.set(opKey, old === undefined ? sample : old + ALPHA * (sample - old));
  }

  /** Every op key's rate (what a profile saves). */
  entries(): Array<{ opKey: string; rate: number }> {
    return [...this.rates].map(([opKey, rate]) => ({ opKey, rate }));
  }

  /** Rates from a profile, for op keys not observed here yet (rates are clamped to [0, 1]). */
  seed(entries: ReadonlyArray<{ readonly opKey: string; readonly rate: number }>): void {
    for (const { opKey, rate } of entries)
      if (!this.rates.has(opKey)) this.rates.set(opKey, Math.min(1, Math.max(0, rate)));
  }
}
