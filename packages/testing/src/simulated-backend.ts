// A "null device" (after tinygrad's): it computes nothing, returns zero-filled outputs of the right size, and
// takes exactly the time its latency function says on a ManualClock. The scheduler's tests and the cost-model
// benchmark use it to build workloads whose true crossover is known.
import {
  byteLengthOf,
  checkCapabilities,
  numel,
  OP_KINDS,
  DTYPES,
  type BackendHealth,
  type BackendKind,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type OpWork,
  type PerformanceProfile,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import { opWork } from '@tandem/core';
import type { ManualClock } from './manual-clock.ts';

/** How a simulated backend behaves. */
export interface SimulatedBackendOptions {
  /** Backend name. */
  readonly name: string;
  /** cpu or gpu. */
  readonly kind: BackendKind;
  /** Tie-break order (default 50). */
  readonly priority?: number;
  /** Last resort only (like the reference in a default engine). */
  readonly fallbackOnly?: boolean;
  /** True time of an op, ms; may change between calls to move the crossover. */
  latencyMs: (op: Op<TensorSpec>, work: OpWork) => number;
  /** The clock the engine reads; run() advances it by the latency. */
  readonly clock: ManualClock;
  /** Roofline prior to report (default: the engine's default for the kind). */
  readonly performance?: PerformanceProfile;
  /** Capabilities (default: every op and dtype). */
  readonly capabilities?: readonly Capability[];
  /** Bytes free to report, if any. */
  readonly availableMemoryBytes?: number;
  /** Simulated host<->device bandwidth, bytes per ms: uploads and downloads advance the clock (default: free). */
  readonly transferBytesPerMs?: number;
  /** Report the device as emulated on the CPU, like SwiftShader (default false). */
  readonly software?: boolean;
  /** Its first run of an op compiles, as WebGPU's does (default: true for a GPU, false for a CPU). */
  readonly compilesOnFirstRun?: boolean;
}

/** A backend with scripted latency and no real compute. */
export class SimulatedBackend implements CapableBackend {
  readonly name: string;
  readonly kind: BackendKind;
  readonly priority: number;
  readonly fallbackOnly: boolean;
  readonly compilesOnFirstRun: boolean;
  readonly capabilities: readonly Capability[];
  /** Ops run, for assertions. */
  calls = 0;
  private readonly options: SimulatedBackendOptions;
  private readonly memory = new Map<number, Uint8Array>();
  private nextId = 1;

  constructor(options: SimulatedBackendOptions) {
    this.options = options;
    this.name = options.name;
    this.kind = options.kind;
    this.priority = options.priority ?? 50;
    this.fallbackOnly = options.fallbackOnly ?? false;
    this.compilesOnFirstRun = options.compilesOnFirstRun ?? options.kind === 'gpu';
    this.capabilities = options.capabilities ?? OP_KINDS.map((op) => ({ op, dtypes: DTYPES }));
  }

  /** Changes the latency function (moves the crossover mid-run). */
  setLatency(latencyMs: (op: Op<TensorSpec>, work: OpWork) => number): void {
    this.options.latencyMs = latencyMs;
  }

  async init(): Promise<InitResult> {
    return { ok: true };
  }

  describe(): DeviceDescription {
    return {
      name: `simulated ${this.kind}`,
      features: [],
      ...(this.options.performance === undefined ? {} : { performance: this.options.performance }),
      ...(this.options.availableMemoryBytes === undefined
        ? {}
        : { availableMemoryBytes: this.options.availableMemoryBytes }),
      ...(this.options.software === undefined ? {} : { software: this.options.software }),
    };
  }

  supportsOp(op: Op<TensorSpec>): SupportVerdict {
    return checkCapabilities(this.capabilities, op);
  }

  async upload(data: Uint8Array): Promise<DeviceBuffer> {
    this.transfer(data.byteLength);
    return this.store(data.slice());
  }

  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    const data = this.memory.get(buffer.id);
    if (data === undefined) throw new Error(`${this.name}: buffer ${buffer.id} does not exist`);
    this.transfer(data.byteLength);
    return data.slice();
  }

  free(buffer: DeviceBuffer): void {
    this.memory.delete(buffer.id);
  }

  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    this.calls++;
    const ms = this.options.latencyMs(op, opWork(op));
    this.options.clock.advance(ms);
    return {
      outputs: outputs.map((o) => this.store(new Uint8Array(byteLengthOf(o.dtype, numel(o.shape))))),
      kernelMs: ms,
    };
  }

  health(): BackendHealth {
    return { state: 'healthy' };
  }

  async dispose(): Promise<void> {
    this.memory.clear();
  }

  private transfer(bytes: number): void {
    const bw = this.options.transferBytesPerMs;
    if (bw !== undefined) this.options.clock.advance(bytes / bw);
  }

  private store(data: Uint8Array): DeviceBuffer {
    const id = this.nextId++;
    this.memory.set(id, data);
    return { backend: this.name, id, byteLength: data.byteLength };
  }
}
