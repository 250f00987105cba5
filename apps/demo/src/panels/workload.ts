// A steady background workload for the device-loss demonstration: each step scores a random word against
// resident word vectors (cosine, then top-k) and multiplies a fresh batch by resident weights, every call
// `gpu-preferred` and labelled WORKLOAD_LABEL. It counts calls per backend and every error it sees.
//
// A step whose intermediate result (the scores between cosine and top-k, or an output not yet read back) lived
// only on the GPU when the device was lost cannot be finished anywhere: the engine falls back for ops whose
// inputs have a host copy, but it does not recompute lost intermediates. Such a step is re-run once from its
// host inputs, and counted and shown as a re-run (never silently).
import { AllBackendsFailedError, DeviceLostError, type Engine, type Tensor } from '@tandem/core';
import { WORKLOAD_LABEL } from '../search/nearest.ts';

/** Most word vectors the workload scores against (keeps a step short on a software GPU). */
const MAX_TARGETS = 8192;
const MATMUL_N = 128;

/** What the workload has done so far. */
export interface WorkloadStats {
  /** Steps completed. */
  readonly steps: number;
  /** Engine calls answered, per backend that answered them. */
  readonly answeredBy: Readonly<Record<string, number>>;
  /** Errors left after the re-run (expected: none). */
  readonly errors: readonly string[];
  /** Steps re-run from host inputs because a device loss took their intermediate results, with the first cause. */
  readonly reruns: { readonly count: number; readonly firstCause: string | undefined };
}

/** Whether an error comes from a lost device (directly, or as the reason every backend failed). */
export function isDeviceLoss(error: unknown): boolean {
  if (error instanceof DeviceLostError) return true;
  if (error instanceof AllBackendsFailedError) return error.failures.some((f) => /device lost/i.test(f.error));
  return error instanceof Error && /device lost/i.test(error.message);
}

/** The background workload; start() and stop() it. */
export class Workload {
  private readonly engine: Engine;
  private readonly targets: Tensor;
  private readonly weights: Tensor;
  private readonly dim: number;
  private readonly vectors: Float32Array;
  private running: Promise<void> | undefined;
  private stopping = false;
  private steps = 0;
  private readonly answeredBy: Record<string, number> = {};
  private readonly errors: string[] = [];
  private reruns = 0;
  private armed: (() => void) | undefined;
  private firstRerunCause: string | undefined;
  private readonly unsubscribe: () => void;

  constructor(engine: Engine, vectors: Float32Array, dim: number) {
    this.engine = engine;
    this.dim = dim;
    const count = Math.min(MAX_TARGETS, vectors.length / dim);
    this.vectors = vectors.subarray(0, count * dim);
    this.targets = engine.tensor(this.vectors, [count, dim]);
    const w = new Float32Array(MATMUL_N * MATMUL_N);
    for (let i = 0; i < w.length; i++) w[i] = ((i * 2654435761) % 1000) / 1000 - 0.5;
    this.weights = engine.tensor(w, [MATMUL_N, MATMUL_N]);
    this.unsubscribe = engine.telemetry.subscribe((event) => {
      if (event.label === WORKLOAD_LABEL && event.ok)
        this.answeredBy[event.backend] = (this.answeredBy[event.backend] ?? 0) + 1;
    });
  }

  /** Whether it is running. */
  get active(): boolean {
    return this.running !== undefined;
  }

  /** Counts so far. */
  stats(): WorkloadStats {
    return {
      steps: this.steps,
      answeredBy: { ...this.answeredBy },
      errors: [...this.errors],
      reruns: { count: this.reruns, firstCause: this.firstRerunCause },
    };
  }

  /** Starts the loop (no-op when running). */
  start(onStep: (stats: WorkloadStats) => void): void {
    if (this.running !== undefined) return;
    this.stopping = false;
    this.running = this.loop(onStep).finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Calls `action` once, in the next step, right after that step's first call has been issued to the engine and
   * before it completes: the way to lose the device while a call is in flight on it.
   */
  armDuringNextCall(action: () => void): void {
    this.armed = action;
  }

  /** Stops after the step in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Stops and frees the resident tensors. */
  async dispose(): Promise<void> {
    await this.stop();
    this.unsubscribe();
    this.targets.dispose();
    this.weights.dispose();
  }

  private async loop(onStep: (stats: WorkloadStats) => void): Promise<void> {
    while (!this.stopping) {
      try {
        await this.stepWithRerun();
      } catch (error) {
        this.errors.push(describe(error));
      }
      this.steps++;
      onStep(this.stats());
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  private async stepWithRerun(): Promise<void> {
    try {
      await this.step();
    } catch (error) {
      if (!isDeviceLoss(error)) throw error;
      this.reruns++;
      this.firstRerunCause ??= describe(error);
      await this.step();
    }
  }

  private async step(): Promise<void> {
    const engine = this.engine;
    const row = this.steps % (this.vectors.length / this.dim);
    const query = engine.tensor(this.vectors.slice(row * this.dim, (row + 1) * this.dim), [1, this.dim]);
    const batch = engine.tensor(new Float32Array(64 * MATMUL_N).fill((this.steps % 7) / 7), [64, MATMUL_N]);
    const made: Tensor[] = [query, batch];
    try {
      // The engine picks the backend synchronously when a call is issued; an armed action runs right after that.
      const scoring = engine.run(
        { op: 'cosineSimilarity', queries: query, targets: this.targets },
        { strategy: 'gpu-preferred', label: WORKLOAD_LABEL },
      );
      const armed = this.armed;
      this.armed = undefined;
      armed?.();
      const [scores] = await scoring;
      if (scores !== undefined) made.push(scores);
      if (scores !== undefined) {
        const top = await engine.run(
          { op: 'topK', x: scores, k: 10 },
          { strategy: 'gpu-preferred', label: WORKLOAD_LABEL },
        );
        made.push(...top);
        await top[0]?.read();
      }
      const product = await engine.run(
        { op: 'matmul', a: batch, b: this.weights },
        { strategy: 'gpu-preferred', label: WORKLOAD_LABEL },
      );
      made.push(...product);
      await product[0]?.read();
    } finally {
      for (const t of made) t.dispose();
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
