// The reference backend: plain TypeScript with float64 accumulation, the oracle every other backend is
// compared against and the engine's answer of last resort. Memory is a Map of host byte arrays.
import {
  BackendError,
  byteLengthOf,
  errorMessage,
  InvalidArgumentError,
  mapOpTensors,
  monotonicClock,
  numel,
  opMemory,
  OutOfMemoryError,
  TandemError,
  type BackendHealth,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type PerformanceProfile,
  type RunResult,
  type TensorSpec,
} from '@tandem/core';
import { REFERENCE_CAPABILITIES } from './capabilities.ts';
import { computeReference, referenceScratchBytes } from './compute.ts';
import type { HostTensor } from './host-tensor.ts';

/** Speeds of plain JS loops, roughly: 1 GFLOP/s, 2 GB/s, a couple of microseconds per call, no transfers. */
export const REFERENCE_PERFORMANCE: PerformanceProfile = {
  flopsPerMs: 1e6,
  bytesPerMs: 2e6,
  launchMs: 0.002,
  transferBytesPerMs: Infinity,
};

/** The reference's health: always healthy (one object: health() runs on every call). */
const HEALTHY: BackendHealth = { state: 'healthy' };

/** Default memory budget of a ReferenceBackend: 2 GiB of buffers, outputs and scratch (see docs/decisions.md). */
export const DEFAULT_REFERENCE_MEMORY_BYTES = 2 ** 31;

/** Options of a ReferenceBackend. */
export interface ReferenceBackendOptions {
  /** Keep it out of every strategy's choice unless nothing else can run the op (how default engines register it). */
  readonly fallbackOnly?: boolean;
  /** Bytes its buffers, outputs and scratch may take together (default DEFAULT_REFERENCE_MEMORY_BYTES). */
  readonly memoryBytes?: number;
}

/** Runs every op on the CPU with the reference kernels (see kernels/), within a memory budget. */
export class ReferenceBackend implements CapableBackend {
  /** Always 'reference'. */
  readonly name = 'reference';
  /** A CPU backend. */
  readonly kind = 'cpu';
  /** Tried last among equals: it is the slowest and the most trusted. */
  readonly priority = 100;
  /** Every op and dtype inferOutputs accepts. */
  readonly capabilities: readonly Capability[] = REFERENCE_CAPABILITIES;
  /** When true, the scheduler uses it only as the last resort (how default engines register it). */
  readonly fallbackOnly: boolean;
  /** The memory budget, bytes: buffers held plus a running op's outputs and scratch stay within it. */
  readonly memoryBytes: number;
  private readonly memory = new Map<number, Uint8Array>();
  private usedBytes = 0;
  private nextId = 1;

  /** See ReferenceBackendOptions; a budget that is not a non-negative safe integer is an InvalidArgumentError. */
  constructor(options: ReferenceBackendOptions = {}) {
    this.fallbackOnly = options.fallbackOnly ?? false;
    const budget = options.memoryBytes ?? DEFAULT_REFERENCE_MEMORY_BYTES;
    if (!Number.isSafeInteger(budget) || budget < 0)
      throw new InvalidArgumentError('ReferenceBackend.memoryBytes', budget, 'must be a non-negative safe integer');
    this.memoryBytes = budget;
  }

  /** Nothing to acquire. */
  async init(): Promise<InitResult> {
    return { ok: true };
  }

  /** The host CPU, with the reference's rough speeds. */
  describe(): DeviceDescription {
    return {
      name: 'reference (TypeScript, float64 accumulation)',
      memoryBytes: this.memoryBytes,
      availableMemoryBytes: this.availableMemory(),
      features: [],
      performance: REFERENCE_PERFORMANCE,
    };
  }

  /** Bytes of the budget not held by buffers. */
  availableMemory(): number {
    return this.memoryBytes - this.usedBytes;
  }

  /** Temporary bytes its kernels allocate for `op` beside the outputs (f16 widened, weights expanded, sums). */
  scratchBytes(op: Op<TensorSpec>, outputs: readonly TensorSpec[]): number {
    return referenceScratchBytes(op, outputs);
  }

  /** Copies the bytes into a new buffer; OutOfMemoryError past the budget. */
  async upload(data: Uint8Array, _spec: TensorSpec): Promise<DeviceBuffer> {
    this.reserve('an upload', data.byteLength);
    return this.store(data.slice());
  }

  /** A copy of the buffer's bytes. */
  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    return this.bytes(buffer, 'download').slice();
  }

  /** Forgets the buffer; freeing twice or freeing a foreign buffer does nothing. */
  free(buffer: DeviceBuffer): void {
    if (buffer.backend !== this.name) return;
    const data = this.memory.get(buffer.id);
    if (data === undefined) return;
    this.memory.delete(buffer.id);
    this.usedBytes -= data.byteLength;
  }

  /** Reads the inputs from memory, computes with computeReference, stores the outputs as new buffers. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    this.reserve(
      `${op.op}'s outputs and scratch`,
      opMemory(op, outputs).outputBytes + referenceScratchBytes(op, outputs),
    );
    const host = mapOpTensors(
      op,
      (t, name): HostTensor => ({ dtype: t.dtype, shape: t.shape, data: this.tensorBytes(t, `${op.op}.${name}`) }),
    );
    const start = monotonicClock();
    let results: HostTensor[];
    try {
      results = computeReference(host);
    } catch (error) {
      if (error instanceof BackendError) throw error;
      const code = error instanceof TandemError ? error.code : 'KERNEL_FAILED';
      throw new BackendError(code, this.name, `${op.op} failed: ${errorMessage(error)}`, { cause: error });
    }
    const kernelMs = monotonicClock() - start;
    checkOutputs(this.name, op.op, results, outputs);
    return { outputs: results.map((r) => this.store(r.data)), kernelMs };
  }

  /** Always healthy: there is no device to lose. */
  health(): BackendHealth {
    return HEALTHY;
  }

  /** Drops every buffer. */
  async dispose(): Promise<void> {
    this.memory.clear();
    this.usedBytes = 0;
  }

  /** Throws OutOfMemoryError unless `bytes` more fit in the budget (checked before allocating them). */
  private reserve(what: string, bytes: number): void {
    const available = this.availableMemory();
    if (bytes > available) throw new OutOfMemoryError(this.name, what, bytes, available);
  }

  private store(data: Uint8Array): DeviceBuffer {
    const id = this.nextId++;
    this.memory.set(id, data);
    this.usedBytes += data.byteLength;
    return { backend: this.name, id, byteLength: data.byteLength };
  }

  private bytes(buffer: DeviceBuffer, what: string): Uint8Array {
    if (buffer.backend !== this.name) {
      throw new BackendError(
        'UNKNOWN_BUFFER',
        this.name,
        `${what}: buffer ${buffer.id} belongs to backend '${buffer.backend}'`,
      );
    }
    const data = this.memory.get(buffer.id);
    if (data === undefined)
      throw new BackendError(
        'UNKNOWN_BUFFER',
        this.name,
        `${what}: buffer ${buffer.id} does not exist (freed or never allocated)`,
      );
    return data;
  }

  private tensorBytes(t: BoundTensor, what: string): Uint8Array {
    const data = this.bytes(t.buffer, what);
    const expected = byteLengthOf(t.dtype, numel(t.shape));
    if (data.byteLength !== expected) {
      throw new BackendError(
        'BUFFER_MISMATCH',
        this.name,
        `${what}: buffer ${t.buffer.id} has ${data.byteLength} bytes; ${t.dtype} [${t.shape.join(', ')}] needs ${expected}`,
      );
    }
    return data;
  }
}

/** Throws unless the computed outputs match the specs the caller asked for. */
function checkOutputs(backend: string, op: string, results: readonly HostTensor[], specs: readonly TensorSpec[]): void {
  const problem =
    results.length !== specs.length
      ? `computed ${results.length} outputs, the caller expects ${specs.length}`
      : results.findIndex(
          (r, i) =>
            r.dtype !== specs[i]?.dtype || r.data.byteLength !== byteLengthOf(r.dtype, numel(specs[i]?.shape ?? [])),
        );
  if (typeof problem === 'string') throw new BackendError('BAD_OUTPUT', backend, `${op}: ${problem}`);
  if (problem >= 0)
    throw new BackendError('BAD_OUTPUT', backend, `${op}: output ${problem} does not match the requested spec`);
}
