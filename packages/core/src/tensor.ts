// Tensors: immutable data with shape metadata. Views and permutes share storage and cost nothing;
// the data lives on the host and/or on backends (its residency) and moves only when an op needs it there.
import './disposable.ts';
import type { DeviceBuffer } from './backend.ts';
import { byteLengthOf, isQuantized, type DType } from './dtype.ts';
import { DisposedError, InvalidArgumentError } from './errors.ts';
import { decodeF16 } from './quant.ts';
import type { TensorOwner } from './ownership.ts';
import { assertValidShape, contiguousStrides, describeValue, numel } from './shape.ts';

/** The JS array each dtype reads back as: f16 decoded to 32-bit floats (exactly), quantized types as raw blocks. */
export interface HostArrayOf {
  /** 32-bit floats. */
  f32: Float32Array;
  /** binary16 values widened to 32-bit floats (every binary16 value is exact in binary32). */
  f16: Float32Array;
  /** Raw Q8_0 blocks. */
  q8_0: Uint8Array;
  /** Raw Q4_0 blocks. */
  q4_0: Uint8Array;
  /** 32-bit signed integers. */
  i32: Int32Array;
  /** 32-bit unsigned integers. */
  u32: Uint32Array;
}

/**
 * Data of one dtype from raw bytes: a view of them when the caller may have them (`owned`: no one else holds them)
 * and they are aligned for the element type, else a copy (a 4 MB read had paid a second full copy on every call).
 */
const fromBytes: { [K in DType]: (bytes: Uint8Array, owned: boolean) => HostArrayOf[K] } = {
  f32: (b, owned) => viewAs(Float32Array, 4, b, owned),
  f16: (b) => decodeF16(viewAs(Uint16Array, 2, b, true)), // decoding copies, so the bits may stay borrowed
  q8_0: (b, owned) => handedOver(b, owned, 1),
  q4_0: (b, owned) => handedOver(b, owned, 1),
  i32: (b, owned) => viewAs(Int32Array, 4, b, owned),
  u32: (b, owned) => viewAs(Uint32Array, 4, b, owned),
};

/** A typed array of `Kind` (`elementBytes` per element) over `bytes` as handedOver gives them. */
function viewAs<A>(
  Kind: new (buffer: ArrayBufferLike, byteOffset: number, length: number) => A,
  elementBytes: number,
  bytes: Uint8Array,
  owned: boolean,
): A {
  const aligned = handedOver(bytes, owned, elementBytes);
  return new Kind(aligned.buffer, aligned.byteOffset, aligned.byteLength / elementBytes);
}

/** `bytes` themselves when `owned` and aligned to `elementBytes`, else a fresh copy (offset 0: aligned for any type). */
function handedOver(bytes: Uint8Array, owned: boolean, elementBytes: number): Uint8Array {
  return owned && bytes.byteOffset % elementBytes === 0 ? bytes : bytes.slice();
}

/** What a tensor needs from its engine: moving bytes and releasing memory. */
export interface TensorHost {
  /**
   * A storage's bytes for a read: its host copy (`owned: false`: the storage keeps it), or a download from a backend
   * that nothing keeps (`owned: true`: the reader may hand it out as is).
   */
  bytesForRead(storage: Storage): Promise<{ readonly bytes: Uint8Array; readonly owned: boolean }>;
  /** Frees every backend replica of a storage. */
  release(storage: Storage): void;
}

/** How a storage's bytes are computed again when every copy of them was lost (lineage.ts). */
export interface Lineage {
  /** Runs the producing op again and returns this output's bytes; `lostOn` and `why` name the loss. */
  recompute(lostOn: string, why: string): Promise<Uint8Array>;
}

/** Bytes shared by a tensor and its views: a host copy and/or copies on backends. */
export class Storage {
  /** Size in bytes. */
  readonly byteLength: number;
  /** Dtype of the elements. */
  readonly dtype: DType;
  /** Host copy, when there is one. */
  host: Uint8Array | undefined;
  /** Valid copies on backends, by backend name. */
  readonly replicas = new Map<string, DeviceBuffer>();
  /** Uploads in flight, so concurrent ops share one transfer. */
  readonly pending = new Map<string, Promise<DeviceBuffer>>();
  /** Set by dispose(). */
  disposed = false;
  /** The op key ('add|f32') of the op that produced it, until the engine learns whether it is read back. */
  producedBy: string | undefined = undefined;
  /** How to compute the bytes again if every copy is lost before the host has one (an op's output); else undefined. */
  lineage: Lineage | undefined = undefined;
  /** The engine it belongs to (only that engine binds it); undefined for data-less placeholders made outside one. */
  readonly owner: TensorOwner | undefined;

  constructor(dtype: DType, byteLength: number, host: Uint8Array | undefined, owner?: TensorOwner) {
    this.dtype = dtype;
    this.byteLength = byteLength;
    this.host = host;
    this.owner = owner;
  }

  /** Where the data is: 'host' and/or backend names. */
  residency(): string[] {
    return [...(this.host === undefined ? [] : ['host']), ...this.replicas.keys()];
  }
}

/** An n-dimensional array. Create with engine.tensor(); ops return new tensors. */
export class Tensor<D extends DType = DType> {
  /** Element type. */
  readonly dtype: D;
  /** Dimensions, row-major. */
  readonly shape: readonly number[];
  /** Elements to step per dimension (views and permutes change these, not the data). */
  readonly strides: readonly number[];
  /** First element's index in the storage. */
  readonly offset: number;
  /** The shared bytes. */
  readonly storage: Storage;
  private readonly host: TensorHost;
  /** Contiguous copy of a non-contiguous view, made once when an op first needs it. */
  contiguousCache: Storage | undefined;
  /** True when the tensor covers its whole storage in row-major order (no copy needed to bind it). */
  readonly isContiguous: boolean;
  /** Number of elements. */
  readonly size: number;

  constructor(
    host: TensorHost,
    storage: Storage,
    dtype: D,
    shape: readonly number[],
    strides?: readonly number[],
    offset = 0,
  ) {
    this.host = host;
    this.storage = storage;
    this.dtype = dtype;
    this.shape = Object.freeze([...shape]);
    const expected = contiguousStrides(this.shape);
    this.strides = Object.freeze(strides === undefined ? expected : [...strides]);
    this.offset = offset;
    this.size = numel(shape);
    const stridesMatch = strides === undefined || this.shape.every((d, i) => d <= 1 || this.strides[i] === expected[i]);
    this.isContiguous = offset === 0 && stridesMatch && byteLengthOf(dtype, this.size) === storage.byteLength;
  }

  /** Where the data is now: 'host' and/or backend names. */
  residency(): string[] {
    return this.storage.residency();
  }

  /**
   * Whether the elements are of `dtype`; narrows the type, so code holding a `Tensor` of a dtype known only at run
   * time (loaded from a file, say) gets a `Tensor<'f32'>` without a cast: `if (t.hasDType('f32')) await engine.softmax(t)`.
   */
  hasDType<E extends DType>(dtype: E): this is Tensor<E> {
    const own: DType = this.dtype;
    return own === dtype;
  }

  /** Same data, new shape (same element count); needs a contiguous tensor. */
  reshape(shape: readonly number[]): Tensor<D> {
    this.assertLive();
    assertValidShape('reshape.shape', shape);
    if (numel(shape) !== this.size)
      throw new InvalidArgumentError(
        'reshape.shape',
        [...shape],
        `must have ${this.size} elements like [${this.shape.join(', ')}]`,
      );
    if (!this.isContiguous)
      throw new InvalidArgumentError(
        'reshape.this',
        [...this.shape],
        'must be contiguous (a permuted view cannot be reshaped; run an op on it first)',
      );
    return new Tensor(this.host, this.storage, this.dtype, shape);
  }

  /** Reorders dimensions without moving data: result.shape[i] = shape[axes[i]]. */
  permute(axes: readonly number[]): Tensor<D> {
    this.assertLive();
    if (isQuantized(this.dtype))
      throw new InvalidArgumentError(
        'permute.this.dtype',
        this.dtype,
        'quantized tensors cannot be permuted (blocks run along the last dimension)',
      );
    if (!Array.isArray(axes))
      throw new InvalidArgumentError('permute.axes', describeValue(axes), 'must be an array of axes');
    const sorted = [...axes].sort((a, b) => a - b);
    if (axes.length !== this.shape.length || sorted.some((a, i) => a !== i)) {
      throw new InvalidArgumentError('permute.axes', [...axes], `must be a permutation of 0..${this.shape.length - 1}`);
    }
    const shape = axes.map((a) => this.shape[a] ?? 1);
    const strides = axes.map((a) => this.strides[a] ?? 1);
    return new Tensor(this.host, this.storage, this.dtype, shape, strides, this.offset);
  }

  /** Swaps the last two dimensions (a view). */
  transpose(): Tensor<D> {
    const n = this.shape.length;
    if (n < 2) throw new InvalidArgumentError('transpose.this.shape', [...this.shape], 'must have rank >= 2');
    const axes = [...Array(n).keys()];
    axes[n - 2] = n - 1;
    axes[n - 1] = n - 2;
    return this.permute(axes);
  }

  /** Rows [start, end) of the first dimension (a view). */
  slice(start: number, end: number): Tensor<D> {
    this.assertLive();
    const rows = this.shape[0] ?? 0;
    if (this.shape.length === 0) throw new InvalidArgumentError('slice.this.shape', [], 'must have rank >= 1');
    if (!Number.isInteger(start) || start < 0 || start > rows)
      throw new InvalidArgumentError('slice.start', start, `must be an integer in [0, ${rows}]`);
    if (!Number.isInteger(end) || end < start || end > rows)
      throw new InvalidArgumentError('slice.end', end, `must be an integer in [${start}, ${rows}]`);
    if (isQuantized(this.dtype) && !this.isContiguous)
      throw new InvalidArgumentError('slice.this', this.dtype, 'quantized slices need a contiguous tensor');
    const shape = [end - start, ...this.shape.slice(1)];
    return new Tensor(
      this.host,
      this.storage,
      this.dtype,
      shape,
      this.strides,
      this.offset + start * (this.strides[0] ?? 0),
    );
  }

  /** Copies the data to the host, in row-major order of this view. */
  async read(): Promise<HostArrayOf[D]> {
    const { bytes, owned } = await this.rowMajorBytes();
    return fromBytes[this.dtype](bytes, owned);
  }

  /** Copies the data to the host as stored, in row-major order of this view: f16 as binary16 bits, q8_0 / q4_0 as blocks. */
  async readBytes(): Promise<Uint8Array> {
    const { bytes, owned } = await this.rowMajorBytes();
    return handedOver(bytes, owned, 1);
  }

  /** This view's bytes in row-major order, and whether the caller may keep them (`owned`) or must copy. */
  private async rowMajorBytes(): Promise<{ bytes: Uint8Array; owned: boolean }> {
    this.assertLive();
    const { bytes, owned } = await this.host.bytesForRead(this.storage);
    const contiguous = contiguousBytes(this, bytes);
    // contiguousBytes gathers a strided view into a new array the reader owns; otherwise it returns (a range of) `bytes`.
    return { bytes: contiguous, owned: owned || contiguous.buffer !== bytes.buffer };
  }

  /** Frees the data everywhere (this tensor and every view sharing its storage). Idempotent. */
  dispose(): void {
    if (this.storage.disposed) return;
    this.storage.disposed = true;
    this.host.release(this.storage);
    this.storage.host = undefined;
  }

  /** dispose(), for `using t = ...` blocks. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** dispose(), for `await using t = ...` blocks. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  /** Whether dispose() was called on this tensor or a view of it. */
  get disposed(): boolean {
    return this.storage.disposed;
  }

  private assertLive(): void {
    if (this.storage.disposed) throw new DisposedError(`tensor [${this.shape.join(', ')}] ${this.dtype}`);
  }
}

/** The bytes of a view in row-major order, gathered from its storage's bytes. */
export function contiguousBytes(t: Tensor, storageBytes: Uint8Array): Uint8Array {
  if (t.isContiguous) return storageBytes;
  if (isQuantized(t.dtype)) {
    // Only row slices of contiguous quantized tensors exist: one byte range.
    const start = byteLengthOf(t.dtype, t.offset);
    return storageBytes.subarray(start, start + byteLengthOf(t.dtype, t.size));
  }
  const elemBytes = t.dtype === 'f16' ? 2 : 4;
  const out = new Uint8Array(t.size * elemBytes);
  const rank = t.shape.length;
  const index = new Array<number>(rank).fill(0);
  for (let i = 0; i < t.size; i++) {
    let src = t.offset;
    for (let d = 0; d < rank; d++) src += (index[d] ?? 0) * (t.strides[d] ?? 0);
    out.set(storageBytes.subarray(src * elemBytes, src * elemBytes + elemBytes), i * elemBytes);
    for (let d = rank - 1; d >= 0; d--) {
      const next = (index[d] ?? 0) + 1;
      if (next < (t.shape[d] ?? 1)) {
        index[d] = next;
        break;
      }
      index[d] = 0;
    }
  }
  return out;
}
