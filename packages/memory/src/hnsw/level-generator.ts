// Seeded levels for new nodes: level = floor(-ln(u) * mL) with mL = 1 / ln(M), u uniform in (0, 1] from a
// mulberry32 stream whose 32-bit state is saved with the index, so inserts after load draw the same levels.

/** Highest level a node may get (the format stores levels as bytes). */
export const MAX_LEVEL = 63;

/** A seeded stream of HNSW node levels. */
export class LevelGenerator {
  /** The generator's state (saved and restored with the index). */
  state: number;
  private readonly scale: number;

  /** `M` sets the level multiplier mL = 1 / ln(M); `state` seeds the stream. */
  constructor(m: number, state: number) {
    this.state = state >>> 0;
    this.scale = 1 / Math.log(m);
  }

  /** The next node's level. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const u = (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967296;
    this.state = this.state >>> 0;
    return Math.min(MAX_LEVEL, Math.floor(-Math.log(u) * this.scale));
  }
}
