/** A fixed-capacity ring: pushing past capacity drops the oldest item. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;
  /** Items dropped because the ring was full. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`Ring capacity must be an integer >= 1, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  /** Number of items held. */
  get size(): number {
    return this.count;
  }

  /** Appends an item, evicting the oldest when full. */
  push(item: T): void {
    const end = (this.start + this.count) % this.capacity;
    this.items[end] = item;
    if (this.count < this.capacity) this.count++;
    else {
      this.start = (this.start + 1) % this.capacity;
      this.dropped++;
    }
  }

  /** The item `back` places before the newest (0: the newest), or undefined past the oldest held; O(1), no copy. */
  fromNewest(back: number): T | undefined {
    if (!Number.isInteger(back) || back < 0 || back >= this.count) return undefined;
    return this.items[(this.start + this.count - 1 - back) % this.capacity];
  }

  /** Items oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) {
      const item = this.items[(this.start + i) % this.capacity];
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  /** Removes everything and zeroes the dropped count. */
  clear(): void {
    this.items.fill(undefined);
    this.start = 0;
    this.count = 0;
    this.dropped = 0;
  }
}
