// Deliberately wrong kernels, for self-checks: a backend that computes each op with the reference and then breaks
// the result the way real kernel bugs do. A property or comparison that lets one of these pass cannot fail.
import {
  byteLengthOf,
  isQuantized,
  mapOpTensors,
  type BackendHealth,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type RunResult,
  type TensorSpec,
} from '@tandem/core';
import { computeReference, REFERENCE_CAPABILITIES, type HostTensor } from '@tandem/reference';

/**
 * 'zeros': every output all zero bytes (a kernel that never wrote). 'off-by-one': every output read one element
 * late (element i holds element i + 1; the last holds 0). 'transposed': the first input read column-major (its
 * [rows, rest] data transposed before the op), for ops whose first input is a matrix.
 */
export type WrongKind = 'zeros' | 'off-by-one' | 'transposed';

/** Every kind of wrong kernel. */
export const WRONG_KINDS: readonly WrongKind[] = ['zeros', 'off-by-one', 'transposed'];

/** Element size in bytes of a dtype's stored data (quantized blocks are moved as whole 32-element blocks). */
function elementBytes(dtype: HostTensor['dtype']): number {
  return byteLengthOf(dtype, isQuantized(dtype) ? 32 : 1);
}

/** Output i := output i + 1, the last zero. */
function shiftedByOne(t: HostTensor): HostTensor {
  const size = elementBytes(t.dtype);
  const data = new Uint8Array(t.data.byteLength);
  data.set(t.data.subarray(size));
  return { ...t, data };
}

/** The tensor's bytes as a [rows, rest] matrix stored column-major: element (r, c) moved to (c, r) of [rest, rows]. */
function transposed(t: HostTensor): HostTensor {
  const rows = t.shape[0] ?? 1;
  const size = elementBytes(t.dtype);
  const units = t.data.byteLength / size;
  const cols = rows === 0 ? 0 : units / rows;
  const data = new Uint8Array(t.data.byteLength);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      data.set(t.data.subarray((r * cols + c) * size, (r * cols + c + 1) * size), (c * rows + r) * size);
  return { ...t, data };
}

/** The reference's outputs for `op`, broken as `kind` says. */
export function wrongOutputs(kind: WrongKind, op: Op<HostTensor>): HostTensor[] {
  if (kind === 'transposed') {
    let first = true;
    const swapped = mapOpTensors(op, (t) => {
      const out = first ? transposed(t) : t;
      first = false;
      return out;
    });
    return computeReference(swapped);
  }
  const right = computeReference(op);
  return kind === 'zeros'
    ? right.map((t) => ({ ...t, data: new Uint8Array(t.data.byteLength) }))
    : right.map(shiftedByOne);
}

/** A host-memory backend named `wrong-<kind>` whose every op is wrong in that way. */
export class WrongBackend implements CapableBackend {
  /** `wrong-<kind>`. */
  readonly name: string;
  /** A CPU backend (compared on unflushed inputs). */
  readonly kind = 'cpu';
  /** Before the reference in fallback order (not that it matters with `{ only }`). */
  readonly priority = 0;
  /** Every op the reference runs. */
  readonly capabilities = REFERENCE_CAPABILITIES;
  private readonly memory = new Map<number, Uint8Array>();
  private nextId = 1;

  /** A backend whose kernels are wrong as `wrong` says. */
  constructor(readonly wrong: WrongKind) {
    this.name = `wrong-${wrong}`;
  }

  /** Nothing to acquire. */
  async init(): Promise<InitResult> {
    return { ok: true };
  }

  /** The host. */
  describe(): DeviceDescription {
    return { name: `reference kernels made wrong (${this.wrong})`, features: [] };
  }

  /** Keeps a copy of the bytes. */
  async upload(data: Uint8Array, _spec: TensorSpec): Promise<DeviceBuffer> {
    return this.store(data.slice());
  }

  /** A copy of the bytes. */
  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    return this.bytes(buffer).slice();
  }

  /** Forgets the buffer. */
  free(buffer: DeviceBuffer): void {
    this.memory.delete(buffer.id);
  }

  /** The reference's result, made wrong. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const host = mapOpTensors(
      op,
      (t): HostTensor => ({ dtype: t.dtype, shape: [...t.shape], data: this.bytes(t.buffer) }),
    );
    const results = wrongOutputs(this.wrong, host);
    if (results.length !== outputs.length)
      throw new Error(`${op.op}: ${results.length} outputs for ${outputs.length} specs`);
    return { outputs: results.map((r) => this.store(r.data)), kernelMs: 0 };
  }

  /** Always healthy. */
  health(): BackendHealth {
    return { state: 'healthy' };
  }

  /** Drops every buffer. */
  async dispose(): Promise<void> {
    this.memory.clear();
  }

  private store(data: Uint8Array): DeviceBuffer {
    const id = this.nextId++;
    this.memory.set(id, data);
    return { backend: this.name, id, byteLength: data.byteLength };
  }

  private bytes(buffer: DeviceBuffer): Uint8Array {
    const data = this.memory.get(buffer.id);
    if (data === undefined) throw new Error(`${this.name}: unknown buffer ${buffer.id}`);
    return data;
  }
}
