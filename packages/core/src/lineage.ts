// A result's lineage: the op that produced it, over weakly held inputs, so that a result whose only copy was lost
// with its device (a GPU process killed, a device destroyed) before it was read is computed again instead of lost.
// The inputs are held weakly: lineage never keeps a tensor alive, so a result whose inputs the program has dropped
// or disposed cannot be recomputed and its read rejects with DATA_LOST, as it did before lineage.
import { BackendError, errorMessage } from './errors.ts';
import { mapOpTensors, type Op } from './ops.ts';
import type { Lineage, Tensor } from './tensor.ts';

/** Runs an op again through the engine (its planning, fallbacks and telemetry). */
export type Rerun = (op: Op<Tensor>, label: string | undefined) => Promise<Tensor[]>;

/** Tells the telemetry that a lost result is being recomputed: the backend that lost it and why. */
export type RecomputeNotice = (backend: string, op: string, detail: string) => void;

/** Output `index` of `op`, recomputable while the op's inputs are alive. */
export class OpLineage implements Lineage {
  private readonly op: Op<WeakRef<Tensor>>;
  private readonly index: number;
  private readonly label: string | undefined;
  private readonly rerun: Rerun;
  private readonly notice: RecomputeNotice;
  /** The recomputation in flight: concurrent reads of one lost result share it. */
  private inFlight: Promise<Uint8Array> | undefined;

  constructor(
    op: Op<WeakRef<Tensor>>,
    index: number,
    label: string | undefined,
    rerun: Rerun,
    notice: RecomputeNotice,
  ) {
    this.op = op;
    this.index = index;
    this.label = label;
    this.rerun = rerun;
    this.notice = notice;
  }

  /** The op over weak references to its inputs (one per call, shared by its outputs' lineages). */
  static weakOp(op: Op<Tensor>): Op<WeakRef<Tensor>> {
    return mapOpTensors(op, (t) => new WeakRef(t));
  }

  recompute(lostOn: string, why: string): Promise<Uint8Array> {
    this.inFlight ??= this.run(lostOn, why).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async run(lostOn: string, why: string): Promise<Uint8Array> {
    const op = mapOpTensors(this.op, (ref, name) => {
      const tensor = ref.deref();
      if (tensor === undefined || tensor.storage.disposed)
        throw new BackendError('DATA_LOST', lostOn, `${why}; it cannot be recomputed: input ${name} is no longer held`);
      return tensor;
    });
    this.notice(lostOn, op.op, `output ${this.index} of ${op.op} lost (${why}); running ${op.op} again`);
    let outputs: Tensor[];
    try {
      outputs = await this.rerun(op, this.label);
    } catch (error) {
      throw new BackendError('DATA_LOST', lostOn, `${why}; recomputing it failed: ${errorMessage(error)}`);
    }
    try {
      const output = outputs[this.index];
      if (output === undefined) throw new BackendError('BAD_OUTPUT', 'engine', `${op.op} has no output ${this.index}`);
      // One recomputation per loss: a recomputed result lost again before this read is DATA_LOST, not a loop.
      output.storage.lineage = undefined;
      return await output.readBytes();
    } finally {
      for (const o of outputs) o.dispose();
    }
  }
}
