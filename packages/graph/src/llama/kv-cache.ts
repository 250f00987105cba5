// The KV cache of one layer, kept as engine tensors wherever they were computed.
//
// Design: the cache holds keys and values as two engine tensors [length, kvHeads, headDim]. Growing it is a concat
// (core's `concat` op) of the held tensors with the new rows, on the backend that holds them; the old tensors are then
// disposed. The decoder block puts that concat inside its attention graph, so the placement sees it next to attention
// and a decode step whose ops all stay on one backend never reads k / v back to the host nor re-uploads the prefix.
// bytesCopied counts only bytes that crossed host<->backend or backend<->backend to grow the cache (from the graph's
// report), not the backend-local concat copy.
import { InvalidArgumentError, type Engine, type Strategy, type Tensor } from '@tandem/core';

/** Keys and values of the tokens seen so far, for one layer. */
export class KvCache {
  /** Key/value heads per token. */
  readonly kvHeads: number;
  /** Values per head. */
  readonly headDim: number;
  /** Most tokens it can hold. */
  readonly capacity: number;
  /** Bytes moved between the host and backends (or between backends) to grow this cache so far, for reports. */
  bytesCopied = 0;
  private held: { k: Tensor; v: Tensor } | undefined;
  /** Whether this cache disposes `held` when it replaces or drops it (false for tensors shared with a fork's parent). */
  private owns = true;

  constructor(kvHeads: number, headDim: number, capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new InvalidArgumentError('KvCache.capacity', capacity, 'must be a positive integer');
    this.kvHeads = kvHeads;
    this.headDim = headDim;
    this.capacity = capacity;
  }

  /** Tokens held. */
  get length(): number {
    return this.held?.k.shape[0] ?? 0;
  }

  /** The held keys and values [length, kvHeads, headDim] (owned by the cache: valid until the next append), or undefined when empty. */
  tensors(): { k: Tensor; v: Tensor } | undefined {
    return this.held;
  }

  /**
   * Replaces the held tensors with `k` and `v` [rows, kvHeads, headDim], e.g. a graph's concat outputs; the cache
   * takes them over (and disposes them later) and disposes what it held. `bytesMoved` adds to bytesCopied.
   */
  adopt(k: Tensor, v: Tensor, bytesMoved = 0): void {
    const rows = k.shape[0] ?? 0;
    this.check(k, v, rows);
    if (rows > this.capacity)
      throw new InvalidArgumentError(
        'KvCache.adopt.k.shape[0]',
        rows,
        `must be at most the capacity (${this.capacity} tokens)`,
      );
    this.release();
    this.held = { k, v };
    this.owns = true;
    this.bytesCopied += bytesMoved;
  }

  /**
   * Appends the rows of k and v ([rows, kvHeads, headDim] engine tensors; the caller keeps them) with concat on the
   * engine, the old tensors disposed. For callers outside the decoder block, which appends inside its graph.
   */
  async append(engine: Engine, k: Tensor, v: Tensor, strategy?: Strategy): Promise<void> {
    const added = k.shape[0] ?? 0;
    this.check(k, v, added);
    if (this.length + added > this.capacity) {
      throw new InvalidArgumentError(
        'KvCache.append.k.shape[0]',
        added,
        `would exceed the capacity (${this.capacity} tokens, ${this.length} held)`,
      );
    }
    const held = this.held;
    if (held === undefined) {
      // The first rows: copied after an empty tensor (0 bytes to upload) on the backend that holds them; the caller
      // still owns k and v. (A 0-row slice of k would be a view, gathered through the host.)
      const empty = engine.tensor(new Float32Array(0), [0, this.kvHeads, this.headDim]);
      try {
        const [kc] = await engine.run({ op: 'concat', a: empty, b: k }, { strategy: strategy });
        const [vc] = await engine.run({ op: 'concat', a: empty, b: v }, { strategy: strategy });
        if (kc === undefined || vc === undefined) throw new Error('concat returned no output');
        this.adopt(kc, vc);
      } finally {
        empty.dispose();
      }
      return;
    }
    const [kc] = await engine.run({ op: 'concat', a: held.k, b: k }, { strategy: strategy });
    const [vc] = await engine.run({ op: 'concat', a: held.v, b: v }, { strategy: strategy });
    if (kc === undefined || vc === undefined) throw new Error('concat returned no output');
    this.adopt(kc, vc);
  }

  /** Host copies of the held keys and values (reads them back: for tests and checks, not the decode path). */
  async read(): Promise<{ k: Float32Array; v: Float32Array }> {
    if (this.held === undefined) return { k: new Float32Array(0), v: new Float32Array(0) };
    const { k, v } = this.held;
    if (!k.hasDType('f32') || !v.hasDType('f32'))
      throw new InvalidArgumentError('KvCache.dtype', k.dtype, 'must be f32');
    const [keys, values] = await Promise.all([k.read(), v.read()]);
    return { k: keys, v: values };
  }

  /**
   * A cache that starts from this one's tokens without copying them (it shares the tensors and never disposes them);
   * appending to it makes its own tensors. This cache must outlive the fork. Benchmarks decode many times from one
   * filled cache this way.
   */
  fork(): KvCache {
    const child = new KvCache(this.kvHeads, this.headDim, this.capacity);
    child.held = this.held;
    child.owns = false;
    return child;
  }

  /** Drops the held tensors (disposed when this cache owns them); the cache is empty afterwards. */
  dispose(): void {
    this.release();
  }

  private release(): void {
    if (this.held !== undefined && this.owns) {
      this.held.k.dispose();
      this.held.v.dispose();
    }
    this.held = undefined;
  }

  private check(k: Tensor, v: Tensor, rows: number): void {
    const want = [rows, this.kvHeads, this.headDim];
    if (k.shape.length !== 3 || k.shape[1] !== this.kvHeads || k.shape[2] !== this.headDim) {
      throw new InvalidArgumentError(
        'KvCache.k.shape',
        [...k.shape],
        `must be [rows, ${this.kvHeads}, ${this.headDim}]`,
      );
    }
    if (v.shape.length !== 3 || want.some((d, i) => v.shape[i] !== d))
      throw new InvalidArgumentError('KvCache.v.shape', [...v.shape], `must equal k.shape [${want.join(', ')}]`);
  }
}
