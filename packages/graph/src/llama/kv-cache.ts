// The KV cache of one layer, kept on the host.
//
// Design: a preallocated host buffer of `capacity` rows per K and V; append() copies only the new rows in (O(new)).
// Each step then hands attention the prefix [length, kvHeads, headDim] as fresh engine tensors, which copies the
// prefix once (engine.tensor copies its data), and — when attention runs on a GPU — uploads it once more, because
// core's op set has no concat / write-rows op that would let the cache grow in place on a device. At 7B size and
// 512 cached tokens that is 2 x 8 MiB per step: small against the step's ~220 MB of Q8_0 weight reads.
import { InvalidArgumentError, type Engine, type Tensor } from '@tandem/core';

/** Keys and values of the tokens seen so far, for one layer. */
export class KvCache {
  /** Key/value heads per token. */
  readonly kvHeads: number;
  /** Values per head. */
  readonly headDim: number;
  /** Most tokens it can hold. */
  readonly capacity: number;
  /** Bytes copied by append() and tensors() so far (the cost of this design, for reports). */
  bytesCopied = 0;
  private readonly keys: Float32Array;
  private readonly values: Float32Array;
  private rows = 0;

  constructor(kvHeads: number, headDim: number, capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new InvalidArgumentError('KvCache.capacity', capacity, 'must be a positive integer');
    this.kvHeads = kvHeads;
    this.headDim = headDim;
    this.capacity = capacity;
    this.keys = new Float32Array(capacity * kvHeads * headDim);
    this.values = new Float32Array(capacity * kvHeads * headDim);
  }

  /** Tokens held. */
  get length(): number {
    return this.rows;
  }

  /** Appends the rows of k and v ([rows, kvHeads, headDim] each, row-major). */
  append(k: Float32Array, v: Float32Array): void {
    const row = this.kvHeads * this.headDim;
    if (k.length % row !== 0 || v.length !== k.length) {
      throw new InvalidArgumentError('KvCache.append.v.length', v.length, `must equal k.length (${k.length}), a multiple of kvHeads * headDim (${row})`);
    }
    const added = k.length / row;
    if (this.rows + added > this.capacity) {
      throw new InvalidArgumentError('KvCache.append.rows', added, `would exceed the capacity (${this.capacity} tokens, ${this.rows} held)`);
    }
    this.keys.set(k, this.rows * row);
    this.values.set(v, this.rows * row);
    this.rows += added;
    this.bytesCopied += k.byteLength + v.byteLength;
  }

  /** The held keys and values as engine tensors [length, kvHeads, headDim] (copies; the caller disposes them). */
  tensors(engine: Engine): { k: Tensor; v: Tensor } {
    const n = this.rows * this.kvHeads * this.headDim;
    const shape = [this.rows, this.kvHeads, this.headDim];
    this.bytesCopied += 8 * n;
    return { k: engine.tensor(this.keys.subarray(0, n), shape), v: engine.tensor(this.values.subarray(0, n), shape) };
  }

  /** Host views of the held keys and values (no copy; valid until the next append). */
  host(): { k: Float32Array; v: Float32Array } {
    const n = this.rows * this.kvHeads * this.headDim;
    return { k: this.keys.subarray(0, n), v: this.values.subarray(0, n) };
  }

  /** Keeps the first `length` tokens (e.g. to re-run a step). */
  truncate(length: number): void {
    if (!Number.isInteger(length) || length < 0 || length > this.rows) throw new InvalidArgumentError('KvCache.truncate.length', length, `must be an integer in [0, ${this.rows}]`);
    this.rows = length;
  }
}
