// Wraps a real backend and makes chosen calls fail the ways real GPUs fail: a synchronous throw, a rejection,
// a hang past the deadline, device loss (unhealthy until re-initialised), out of memory. Faults come from a
// schedule (call numbers) or a seeded rate. Results of calls that are not faulted are the inner backend's own.
import {
  BackendError,
  DeviceLostError,
  mapOpTensors,
  OutOfMemoryError,
  sleep,
  type BackendHealth,
  type BackendKind,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type OpWork,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';

/** The failure modes the wrapper can inject. */
export type FaultKind = 'throw' | 'reject' | 'hang' | 'device-lost' | 'oom';

/** Decides, per run() call (1-based count), whether to inject a fault and which. */
export type FaultPlan = (call: number, op: Op<BoundTensor>) => FaultKind | undefined;

/** Faults at fixed call numbers, e.g. { 3: 'reject', 7: 'device-lost' }. */
export function faultSchedule(schedule: Readonly<Record<number, FaultKind>>): FaultPlan {
  return (call) => schedule[call];
}

/** Faults at a rate, drawn from a seeded generator so runs repeat exactly. */
export function faultRate(rate: number, kinds: readonly FaultKind[], seed = 1): FaultPlan {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
  return () => {
    if (next() >= rate) return undefined;
    return kinds[Math.floor(next() * kinds.length)];
  };
}

/** Options of the wrapper. */
export interface FaultInjectingOptions {
  /** Name to register under (default: the inner backend's). */
  readonly name?: string;
  /** Kind to report (default: the inner backend's), e.g. to make a CPU backend play a GPU. */
  readonly kind?: BackendKind;
  /** Priority to report (default: the inner backend's). */
  readonly priority?: number;
  /** How long a 'hang' lasts before it finally resolves, ms (default: never). */
  readonly hangMs?: number;
}

/** A CapableBackend that injects faults into another. */
export class FaultInjectingBackend implements CapableBackend {
  readonly name: string;
  readonly kind: BackendKind;
  readonly priority: number;
  readonly compilesOnFirstRun: boolean;
  readonly capabilities: CapableBackend['capabilities'];
  /** Faults injected so far, by kind. */
  readonly injected: Record<FaultKind, number> = { throw: 0, reject: 0, hang: 0, 'device-lost': 0, oom: 0 };
  /** run() calls so far. */
  calls = 0;
  /** Replaceable at any time. */
  plan: FaultPlan;
  private readonly inner: CapableBackend;
  private readonly hangMs: number | undefined;
  private readonly buffers = new Map<number, { inner: DeviceBuffer; epoch: number }>();
  private nextId = 1;
  private lost: string | undefined;
  /** Bumped by each device loss: buffers from an earlier epoch are refused, as a real replaced device does. */
  private epoch = 0;

  constructor(inner: CapableBackend, plan: FaultPlan, options: FaultInjectingOptions = {}) {
    this.inner = inner;
    this.plan = plan;
    this.name = options.name ?? inner.name;
    this.kind = options.kind ?? inner.kind;
    this.priority = options.priority ?? inner.priority;
    this.compilesOnFirstRun = inner.compilesOnFirstRun === true;
    this.capabilities = inner.capabilities;
    this.hangMs = options.hangMs;
  }

  /** Total faults injected. */
  get totalInjected(): number {
    return Object.values(this.injected).reduce((a, b) => a + b, 0);
  }

  async init(): Promise<InitResult> {
    const result = await this.inner.init();
    if (result.ok) this.lost = undefined;
    return result;
  }

  describe(): DeviceDescription {
    return this.inner.describe();
  }

  supportsOp(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
    return this.inner.supportsOp?.(op, outputs) ?? { ok: true };
  }

  estimateCost(op: Op<TensorSpec>, work: OpWork): number | undefined {
    return this.inner.estimateCost?.(op, work);
  }

  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    this.assertAlive();
    return this.wrap(await this.inner.upload(data, spec));
  }

  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    this.assertAlive();
    return this.inner.download(this.unwrap(buffer));
  }

  free(buffer: DeviceBuffer): void {
    const held = this.buffers.get(buffer.id);
    this.buffers.delete(buffer.id);
    if (held !== undefined) this.inner.free(held.inner);
  }

  run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    this.calls++;
    if (this.lost !== undefined) return Promise.reject(new DeviceLostError(this.name, this.lost));
    const fault = this.plan(this.calls, op);
    if (fault !== undefined) this.injected[fault]++;
    switch (fault) {
      case 'throw':
        throw new BackendError('INJECTED', this.name, `injected synchronous throw on call ${this.calls}`);
      case 'reject':
        return Promise.reject(new BackendError('INJECTED', this.name, `injected rejection on call ${this.calls}`));
      case 'oom':
        return Promise.reject(new OutOfMemoryError(this.name, `injected allocation on call ${this.calls}`, 2 ** 40));
      case 'device-lost':
        this.lost = `injected device loss on call ${this.calls}`;
        this.epoch++;
        return Promise.reject(new DeviceLostError(this.name, this.lost));
      case 'hang':
        return this.hang(op, outputs);
      case undefined:
        return this.forward(op, outputs);
    }
  }

  health(): BackendHealth {
    return this.lost === undefined ? this.inner.health() : { state: 'unhealthy', reason: this.lost };
  }

  async dispose(): Promise<void> {
    this.buffers.clear();
    await this.inner.dispose();
  }

  private hang(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const hangMs = this.hangMs;
    if (hangMs === undefined) return new Promise<RunResult>(() => undefined);
    return sleep(hangMs).then(() => this.forward(op, outputs));
  }

  private async forward(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const innerOp = mapOpTensors(op, (t) => ({ ...t, buffer: this.unwrap(t.buffer) }));
    const result = await this.inner.run(innerOp, outputs);
    return { kernelMs: result.kernelMs, outputs: result.outputs.map((b) => this.wrap(b)) };
  }

  private assertAlive(): void {
    if (this.lost !== undefined) throw new DeviceLostError(this.name, this.lost);
  }

  private wrap(inner: DeviceBuffer): DeviceBuffer {
    const id = this.nextId++;
    this.buffers.set(id, { inner, epoch: this.epoch });
    return { backend: this.name, id, byteLength: inner.byteLength };
  }

  private unwrap(buffer: DeviceBuffer): DeviceBuffer {
    const held = this.buffers.get(buffer.id);
    if (held === undefined || buffer.backend !== this.name)
      throw new BackendError('UNKNOWN_BUFFER', this.name, `buffer ${buffer.backend}#${buffer.id} is not held here`);
    if (held.epoch !== this.epoch)
      throw new DeviceLostError(this.name, `buffer ${buffer.id} was on a device that is gone; upload it again`);
    return held.inner;
  }
}
