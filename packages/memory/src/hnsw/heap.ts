// A binary min-heap of (key, id) pairs in typed arrays: no objects per entry. A max-heap is the same heap fed
// negated keys (the search keeps its results that way, so the farthest result is on top).

/** Min-heap of float keys with int ids; grows as needed. */
export class MinHeap {
  /** Number of entries. */
  size = 0;
  private keys: Float64Array;
  private ids: Int32Array;

  /** Room for `capacity` entries before growing. */
  constructor(capacity: number) {
    this.keys = new Float64Array(Math.max(4, capacity));
    this.ids = new Int32Array(Math.max(4, capacity));
  }

  /** Removes every entry. */
  clear(): void {
    this.size = 0;
  }

  /** Smallest key (undefined behaviour when empty: check size). */
  topKey(): number {
    return this.keys[0] ?? 0;
  }

  /** Id of the smallest key. */
  topId(): number {
    return this.ids[0] ?? 0;
  }

  /** Adds (key, id). */
  push(key: number, id: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const ids = this.ids;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent] ?? 0;
      if (pk <= key) break;
      keys[i] = pk;
      ids[i] = ids[parent] ?? 0;
      i = parent;
    }
    keys[i] = key;
    ids[i] = id;
  }

  /** Removes the smallest entry. */
  pop(): void {
    const n = --this.size;
    if (n <= 0) return;
    const keys = this.keys;
    const ids = this.ids;
    const key = keys[n] ?? 0;
    const id = ids[n] ?? 0;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ck = keys[child] ?? 0;
      const right = child + 1;
      if (right < n) {
        const rk = keys[right] ?? 0;
        if (rk < ck) {
          child = right;
          ck = rk;
        }
      }
      if (ck >= key) break;
      keys[i] = ck;
      ids[i] = ids[child] ?? 0;
      i = child;
    }
    keys[i] = key;
    ids[i] = id;
  }

  /** Key of entry i in heap order (for draining without popping). */
  keyAt(i: number): number {
    return this.keys[i] ?? 0;
  }

  /** Id of entry i in heap order. */
  idAt(i: number): number {
    return this.ids[i] ?? 0;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids);
    this.keys = keys;
    this.ids = ids;
  }
}
